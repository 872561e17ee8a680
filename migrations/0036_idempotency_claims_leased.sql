-- A claim of an idempotency key is held by a lease its request renews while it runs.
--
-- 0029 took a claim never answered for abandoned (its process died mid-request) only a quarter
-- of an hour after it was made, since an import may rightly run for many minutes: a server
-- killed mid-request (kill -9, out of memory, its machine lost) left every retry of that
-- request told `idempotency_key_in_use` for up to 15 minutes.
--
-- Now taskserve renews its claim while the request runs: `renewed_at`, stamped at the claim and
-- again every few seconds (a sixth of the lease, 3.3 s by default; a request shorter than that
-- writes no renewal). A claim not renewed for the lease (20 s by default, taskserve
-- --idempotency-lease) is taken for abandoned: a retry takes it over, or, if its request took
-- effect (0030), is told its answer was lost. A renewal names the claim by its user, key,
-- fingerprint and claimed_at, and changes only one neither answered nor failed: a settled claim,
-- or one another run took over (a new claimed_at), is never revived.
--
-- Rows with no lease of their own keep the quarter of an hour: those claimed before this
-- migration (renewed_at null), and those a taskserve older than it takes over, which leaves
-- the last run's renewed_at behind its own claimed_at. Nothing is filled in here: a request
-- running through the migration under an older taskserve renews nothing, and a stamp given
-- to it would have its claim taken over mid-run.
--
-- Privileges: the runtime role already updates every column of its enabled user's rows only
-- (0029's table grant, 0035's policy); a new column needs no grant of its own.

-- migrate:up
ALTER TABLE public.idempotency_keys ADD COLUMN renewed_at timestamptz;

-- migrate:down
ALTER TABLE public.idempotency_keys DROP COLUMN renewed_at;
