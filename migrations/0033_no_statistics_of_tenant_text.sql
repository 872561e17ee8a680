-- The planner keeps no statistics of the text a team writes, and forgets what it kept.
--
-- PostgreSQL's text comparisons (=, <, >, ...) are leakproof, so under row-level security the
-- planner still estimates them from the column's statistics, which describe every team's rows:
-- as the runtime role acting as a user of another team, `EXPLAIN SELECT * FROM tasks WHERE
-- category = 'merger-zeta'` estimated 40 rows (the 40 such tasks of a team the user is not in),
-- and `EXPLAIN ... WHERE title < 'Alpha plan 8'` 302: a binary search over another team's
-- titles. 0025 took `users`' names out of the statistics for the same reason. Now no column
-- holding what a team (or a user, for idempotency keys) writes has any: the tasks' title, notes,
-- category and external id, the teams' name and key (a key names the team, and its change feed
-- channel), and the idempotency keys' key, request fingerprint and kept answer (an answer holds
-- the task it returned; bytea comparisons are leakproof too, and ANALYZE samples values up to 1 kB).
--
-- Left with statistics, because what they show is the whole table's mix, not a team's, of values
-- everyone knows or that leak little: `tasks.status`, `tasks.priority`, `memberships.role`, the
-- history's and change log's `kind` (fixed vocabularies; the list's status filter is planned from
-- them); the integer ids (`assignee_id`, `created_by`, `team_id`, ...), the dates and times
-- (`due_date`, `created_at`, `changed_at`, ...) and the counters, whose histograms are per table,
-- over all teams: a bound on how many tasks some team has due before a date is all they give, and
-- `team_id`'s estimates are what lets the planner pick a team's indexes. `task_history.changes`
-- (jsonb) and `created_values` (text[]) are compared by operators that are not leakproof, which
-- the planner estimates only after row security. `api_tokens` has no row security to get round.
--
-- Setting the target to 0 does not remove what was collected: ANALYZE then skips the column, and
-- its pg_statistic row stays for good (a database analyzed before 0025 still has `users.email`'s
-- histogram). Only dropping the column or changing its type removes it, and only a superuser may
-- delete from pg_statistic, so each column is "changed" to the type it has (text, bytea): the
-- same type needs no rewrite (the table keeps its relfilenode) and the row is deleted. Plain
-- indexes on those columns (`tasks_team_category_idx`, `tasks_external_id_key`, `teams_key_key`,
-- `idempotency_keys_pkey`) are kept as they are, files and all; the expression index
-- `users_email_key` (lower(email)) is built again, and with it its statistics are gone; it comes
-- back with the default target, so it is set to 0 again. The collations stay (none is named: all
-- are the database's default). This takes ACCESS EXCLUSIVE on `tasks`, `teams`, `users` and
-- `idempotency_keys` until the migration commits (reads wait too), for a catalog change and the
-- rebuild of `users_email_key` (one entry per user), within the runner's lock timeout.
--
-- What it costs: estimates of these columns are the planner's defaults (an equality 0.5% of the
-- rows the other conditions leave, a range a third). The list's category and text filters compare
-- lower(... COLLATE taskbase_fold), an expression no statistics covered before either: on a team
-- of 5,000 tasks among 60,000 (the list statement's page as the runtime role, before and after)
-- their plans, the status filter's and the external id lookup's kept their shape. `category IS
-- NULL` (uncategorized) was estimated from the column's null fraction and is now 0.5% of the
-- team: the page reads every uncategorized task of the team by `tasks_team_category_idx` and
-- keeps the first 51 (0.42 ms for 992 of them) instead of walking the numbers (0.19 ms), a cost
-- that grows with the team's uncategorized tasks.
--
-- lint:allow alter-column-type each column is given the type it has (text, bytea): no rewrite, the plain indexes are kept; what it locks is said above

-- migrate:up
ALTER TABLE public.tasks
    ALTER COLUMN title SET STATISTICS 0, ALTER COLUMN notes SET STATISTICS 0,
    ALTER COLUMN category SET STATISTICS 0, ALTER COLUMN external_id SET STATISTICS 0,
    ALTER COLUMN title TYPE text, ALTER COLUMN notes TYPE text, ALTER COLUMN category TYPE text, ALTER COLUMN external_id TYPE text;
ALTER TABLE public.teams
    ALTER COLUMN name SET STATISTICS 0, ALTER COLUMN key SET STATISTICS 0,
    ALTER COLUMN name TYPE text, ALTER COLUMN key TYPE text;
ALTER TABLE public.idempotency_keys
    ALTER COLUMN key SET STATISTICS 0, ALTER COLUMN fingerprint SET STATISTICS 0, ALTER COLUMN body SET STATISTICS 0,
    ALTER COLUMN key TYPE text, ALTER COLUMN fingerprint TYPE bytea, ALTER COLUMN body TYPE bytea;
-- 0025 set these targets to 0; the statistics collected before it go now.
ALTER TABLE public.users ALTER COLUMN email TYPE text, ALTER COLUMN display_name TYPE text;
ALTER INDEX public.users_email_key ALTER COLUMN 1 SET STATISTICS 0;

-- migrate:down
ALTER TABLE public.idempotency_keys
    ALTER COLUMN key SET STATISTICS -1, ALTER COLUMN fingerprint SET STATISTICS -1, ALTER COLUMN body SET STATISTICS -1;
ALTER TABLE public.teams ALTER COLUMN name SET STATISTICS -1, ALTER COLUMN key SET STATISTICS -1;
ALTER TABLE public.tasks
    ALTER COLUMN title SET STATISTICS -1, ALTER COLUMN notes SET STATISTICS -1,
    ALTER COLUMN category SET STATISTICS -1, ALTER COLUMN external_id SET STATISTICS -1;
