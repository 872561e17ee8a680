-- Any member may leave a team: removing oneself no longer takes an admin. Before, an owner of
-- any team (any user can create one) could add anyone, by email or id, and the added viewer
-- or member could not take themself out again (403 "it takes an admin or above"), as GitHub
-- and Linear let people leave.
--
-- Row security lets only admins delete memberships, and a viewer may not even lock the team's
-- counter row (FOR UPDATE applies the counters' UPDATE policy, members and above), which every
-- membership change takes to serialize with the owner trigger (0008). So leaving goes through
-- a SECURITY DEFINER function (search_path pinned, names qualified, as 0007 has them) that
-- removes only the acting user's own membership, under that lock, and rings the team's
-- doorbell; the owner trigger still refuses the last enabled owner's leaving (23514,
-- teams_keep_an_enabled_owner). A disabled or unknown actor leaves nothing.

-- migrate:up
CREATE FUNCTION public.taskbase_leave_team(team bigint) RETURNS boolean
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        me bigint := public.taskbase_current_user_id();
        team_key text;
    BEGIN
        IF me IS NULL OR NOT EXISTS (SELECT 1 FROM public.users u WHERE u.id = me AND NOT u.disabled) THEN
            RETURN false;
        END IF;
        SELECT t.key INTO team_key FROM public.teams t JOIN public.task_counters c ON c.team_id = t.id WHERE t.id = team FOR UPDATE OF c;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        DELETE FROM public.memberships m WHERE m.team_id = team AND m.user_id = me;
        IF NOT FOUND THEN
            RETURN false;
        END IF;
        PERFORM pg_catalog.pg_notify('taskbase.team.' || team_key, '');
        RETURN true;
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_leave_team(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_leave_team(bigint) TO taskbase_app;

-- migrate:down
DROP FUNCTION public.taskbase_leave_team(bigint);
