-- Disabling (or enabling) a user rings the doorbell of every team they are in, as removing a
-- member already does: each process's change-feed hub reads again under its watchers' rights,
-- and a disabled user's stream ends with "permission denied" at once, even in a quiet team.
-- Before, the UPDATE only rang `taskbase_tokens` (0010), and a watcher disabled through
-- Postgres kept an open in-process stream until someone next changed that team; the memory
-- store rang the teams itself.
--
-- The store cannot ring them: an operator's row security shows only the memberships of their
-- own teams. So a row trigger does, through a SECURITY DEFINER function (search_path pinned,
-- names qualified, as 0007 has them). A NOTIFY carries no data: listeners only read again.

-- migrate:up
CREATE FUNCTION public.taskbase_team_doorbells_of_user() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        PERFORM pg_catalog.pg_notify('taskbase.team.' || tm.key, '')
           FROM public.memberships m
           JOIN public.teams tm ON tm.id = m.team_id
          WHERE m.user_id = NEW.id;
        RETURN NULL;
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_team_doorbells_of_user() FROM PUBLIC;

CREATE TRIGGER users_team_doorbells AFTER UPDATE OF disabled ON public.users
    FOR EACH ROW WHEN (OLD.disabled IS DISTINCT FROM NEW.disabled)
    EXECUTE FUNCTION public.taskbase_team_doorbells_of_user();

-- migrate:down
DROP TRIGGER users_team_doorbells ON public.users;
DROP FUNCTION public.taskbase_team_doorbells_of_user();
