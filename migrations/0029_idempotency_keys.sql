-- Idempotency keys kept in the database, so every taskserve process sharing it knows them.
--
-- taskserve kept each POST's Idempotency-Key, and the answer it gave, in its own memory. Behind a
-- balancer over several processes (or several on one port with --reuse-port), a retry that
-- reached another process ran again: a client whose create timed out got two tasks.
--
-- Now a key is claimed here before the request runs, one row per user and key: the request's
-- fingerprint (SHA-256 of method, path, query and body), when it was claimed, and once it
-- succeeded the answer to replay (status, header lines, body; at most 256 KiB, the server's
-- bound). A claim meets the row of a retry elsewhere (running: 409; answered: replayed) or of
-- another request (422). A row older than a day is claimed again, as is one claimed over a
-- quarter of an hour ago and never answered (its process died). A failed request's row is
-- deleted, so a corrected retry runs. An answer that holds a secret (a new API token) is kept
-- without its body: secrets never reach the database in the clear.
--
-- Each claim first deletes the claiming user's keys older than a day (by the index on user and
-- claim time), so the table holds about a day of each active user's keys rather than every key
-- ever sent (the Swift client sends a new one with every POST).
--
-- Row security: the runtime role sees and writes the acting user's rows only.

-- migrate:up
CREATE TABLE public.idempotency_keys (
    user_id bigint NOT NULL REFERENCES public.users (id) ON DELETE CASCADE,
    key text NOT NULL,
    fingerprint bytea NOT NULL,
    claimed_at timestamptz NOT NULL,
    answered_at timestamptz,
    status integer,
    headers text[],
    body bytea,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (user_id, key),
    CONSTRAINT idempotency_keys_key_length CHECK (octet_length(key) BETWEEN 1 AND 255),
    CONSTRAINT idempotency_keys_fingerprint_length CHECK (octet_length(fingerprint) = 32),
    CONSTRAINT idempotency_keys_answer_whole CHECK ((answered_at IS NULL) = (status IS NULL) AND (answered_at IS NOT NULL OR body IS NULL))
);

CREATE INDEX idempotency_keys_user_claimed ON public.idempotency_keys (user_id, claimed_at);

ALTER TABLE public.idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY idempotency_keys_own ON public.idempotency_keys TO taskbase_app
    USING (user_id = (SELECT public.taskbase_current_user_id()))
    WITH CHECK (user_id = (SELECT public.taskbase_current_user_id()));
GRANT SELECT, INSERT, UPDATE, DELETE ON public.idempotency_keys TO taskbase_app;

-- migrate:down
DROP TABLE public.idempotency_keys;
