-- A team's history leaves with the team. 0013 dropped task_history's foreign key to teams
-- (the per-row check cost as much as writing the row), and 0008 made history append-only for
-- taskbase_app (no UPDATE or DELETE), so the runtime role can no longer delete a deleted
-- team's history itself. This trigger does it, as the cascade did: it fires only for a team
-- row that row-level security let the caller delete (owners only), and runs as
-- taskbase_owner, which owns the table. The search_path is pinned with pg_temp last and every
-- name is qualified, so a caller's temporary tables cannot stand in for the real ones.

-- migrate:up
CREATE FUNCTION public.taskbase_delete_team_history() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        DELETE FROM public.task_history WHERE team_id = OLD.id;
        RETURN OLD;
    END
    $$;
REVOKE ALL ON FUNCTION public.taskbase_delete_team_history() FROM PUBLIC;

CREATE TRIGGER teams_delete_history BEFORE DELETE ON public.teams
    FOR EACH ROW EXECUTE FUNCTION public.taskbase_delete_team_history();

-- migrate:down
DROP TRIGGER teams_delete_history ON public.teams;
DROP FUNCTION public.taskbase_delete_team_history();
