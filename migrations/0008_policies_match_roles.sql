-- Row-level security that matches the role model (issue #16), so that the database itself,
-- not only the service, holds a compromised or buggy holder of the runtime login to it:
--   reads (teams, memberships, counters, tasks, history, change log): members of any role;
--   task writes (tasks, counters, history and log appends): members and above, not viewers;
--   membership changes: admins and above; rows with the owner role, before or after: owners;
--   renaming or deleting a team: owners;
--   task_history and task_changes: append-only for the runtime role (no UPDATE or DELETE);
--   a team's creator has no access of their own (0002's teams.created_by bypass is gone):
--   taskbase_create_team() makes the team, its first owner and its counter in one step.
-- A team always keeps an enabled owner: triggers refuse the membership change or the
-- disabling that would leave one without (SQLSTATE 23514, constraint
-- teams_keep_an_enabled_owner), under the team's counter lock, so two owners stepping
-- down at once cannot both succeed.
--
-- Every function here is SECURITY DEFINER (it runs as taskbase_owner, which owns the
-- tables and so is not subject to their policies) with search_path pinned to
-- pg_catalog, public, pg_temp and every name qualified (see 0007).

-- migrate:up
-- The teams in which the acting user (enabled) holds `least_role` or a higher one.
CREATE FUNCTION public.taskbase_team_ids(least_role text) RETURNS bigint[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN ARRAY(
            SELECT m.team_id
              FROM public.memberships m JOIN public.users u ON u.id = m.user_id
             WHERE m.user_id = public.taskbase_current_user_id() AND NOT u.disabled
               AND array_position(ARRAY['viewer', 'member', 'admin', 'owner'], m.role)
                   >= array_position(ARRAY['viewer', 'member', 'admin', 'owner'], least_role));
    END
    $$;

-- Member of any role; no longer the teams the user created.
CREATE OR REPLACE FUNCTION public.taskbase_visible_team_ids() RETURNS bigint[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN public.taskbase_team_ids('viewer');
    END
    $$;

-- Creates team (key, name) with the acting user as its first owner and its counter, and
-- returns its id. The acting user must exist and be enabled.
CREATE FUNCTION public.taskbase_create_team(team_key text, team_name text, created timestamptz) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        creator bigint := public.taskbase_current_user_id();
        team bigint;
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM public.users u WHERE u.id = creator AND NOT u.disabled) THEN
            RAISE EXCEPTION 'creating a team takes an enabled acting user (taskbase.user_id)' USING ERRCODE = 'insufficient_privilege';
        END IF;
        INSERT INTO public.teams (key, name, created_by, created_at) VALUES (team_key, team_name, creator, created) RETURNING id INTO team;
        INSERT INTO public.memberships (team_id, user_id, role, created_at) VALUES (team, creator, 'owner', created);
        INSERT INTO public.task_counters (team_id) VALUES (team);
        RETURN team;
    END
    $$;

REVOKE ALL ON FUNCTION public.taskbase_team_ids(text), public.taskbase_create_team(text, text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.taskbase_team_ids(text), public.taskbase_create_team(text, text, timestamptz) TO taskbase_app;

REVOKE INSERT ON public.teams FROM taskbase_app;
REVOKE INSERT, DELETE ON public.task_counters FROM taskbase_app;
REVOKE UPDATE, DELETE ON public.task_history FROM taskbase_app;

DROP POLICY teams_visible ON public.teams;
DROP POLICY teams_create ON public.teams;
DROP POLICY teams_change ON public.teams;
DROP POLICY teams_delete ON public.teams;
CREATE POLICY teams_read ON public.teams FOR SELECT TO taskbase_app
    USING (id = ANY ((SELECT public.taskbase_team_ids('viewer'))::bigint[]));
CREATE POLICY teams_rename ON public.teams FOR UPDATE TO taskbase_app
    USING (id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[]))
    WITH CHECK (id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[]));
CREATE POLICY teams_delete ON public.teams FOR DELETE TO taskbase_app
    USING (id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[]));

DROP POLICY memberships_team_isolation ON public.memberships;
CREATE POLICY memberships_read ON public.memberships FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('viewer'))::bigint[]));
CREATE POLICY memberships_add ON public.memberships FOR INSERT TO taskbase_app
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('admin'))::bigint[])
                AND (role <> 'owner' OR team_id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[])));
CREATE POLICY memberships_change ON public.memberships FOR UPDATE TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('admin'))::bigint[])
           AND (role <> 'owner' OR team_id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[])))
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('admin'))::bigint[])
                AND (role <> 'owner' OR team_id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[])));
CREATE POLICY memberships_remove ON public.memberships FOR DELETE TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('admin'))::bigint[])
           AND (role <> 'owner' OR team_id = ANY ((SELECT public.taskbase_team_ids('owner'))::bigint[])));

DROP POLICY task_counters_team_isolation ON public.task_counters;
CREATE POLICY task_counters_read ON public.task_counters FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('viewer'))::bigint[]));
CREATE POLICY task_counters_bump ON public.task_counters FOR UPDATE TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));

DROP POLICY tasks_team_isolation ON public.tasks;
CREATE POLICY tasks_read ON public.tasks FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('viewer'))::bigint[]));
CREATE POLICY tasks_create ON public.tasks FOR INSERT TO taskbase_app
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));
CREATE POLICY tasks_change ON public.tasks FOR UPDATE TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));
CREATE POLICY tasks_delete ON public.tasks FOR DELETE TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));

DROP POLICY task_history_team_isolation ON public.task_history;
CREATE POLICY task_history_read ON public.task_history FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('viewer'))::bigint[]));
CREATE POLICY task_history_append ON public.task_history FOR INSERT TO taskbase_app
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));

DROP POLICY task_changes_read ON public.task_changes;
DROP POLICY task_changes_append ON public.task_changes;
CREATE POLICY task_changes_read ON public.task_changes FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('viewer'))::bigint[]));
CREATE POLICY task_changes_append ON public.task_changes FOR INSERT TO taskbase_app
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));

-- After an owner's membership is changed or removed, or an owner is disabled: every team
-- concerned that still exists keeps an enabled owner, judged under its counter lock.
CREATE FUNCTION public.taskbase_keep_an_enabled_owner() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        concerned bigint[];
        team bigint;
    BEGIN
        IF TG_TABLE_NAME = 'users' THEN
            concerned := ARRAY(SELECT m.team_id FROM public.memberships m WHERE m.user_id = OLD.id AND m.role = 'owner' ORDER BY 1);
        ELSE
            concerned := ARRAY[OLD.team_id];
        END IF;
        FOREACH team IN ARRAY concerned LOOP
            PERFORM 1 FROM public.task_counters c WHERE c.team_id = team FOR UPDATE;
            IF EXISTS (SELECT 1 FROM public.teams t WHERE t.id = team) AND NOT EXISTS (
                SELECT 1 FROM public.memberships m JOIN public.users u ON u.id = m.user_id
                 WHERE m.team_id = team AND m.role = 'owner' AND NOT u.disabled) THEN
                RAISE EXCEPTION 'team % must keep at least one enabled owner', (SELECT t.key FROM public.teams t WHERE t.id = team)
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'teams_keep_an_enabled_owner',
                          HINT = 'make another enabled member an owner first';
            END IF;
        END LOOP;
        RETURN NULL;
    END
    $$;
REVOKE ALL ON FUNCTION public.taskbase_keep_an_enabled_owner() FROM PUBLIC;

CREATE TRIGGER memberships_keep_an_enabled_owner AFTER UPDATE OF role OR DELETE ON public.memberships
    FOR EACH ROW WHEN (OLD.role = 'owner') EXECUTE FUNCTION public.taskbase_keep_an_enabled_owner();
CREATE TRIGGER users_keep_an_enabled_owner AFTER UPDATE OF disabled ON public.users
    FOR EACH ROW WHEN (NEW.disabled AND NOT OLD.disabled) EXECUTE FUNCTION public.taskbase_keep_an_enabled_owner();

-- migrate:down
DROP TRIGGER users_keep_an_enabled_owner ON public.users;
DROP TRIGGER memberships_keep_an_enabled_owner ON public.memberships;
DROP FUNCTION public.taskbase_keep_an_enabled_owner();

DROP POLICY task_changes_append ON public.task_changes;
DROP POLICY task_changes_read ON public.task_changes;
CREATE POLICY task_changes_read ON public.task_changes FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));
CREATE POLICY task_changes_append ON public.task_changes FOR INSERT TO taskbase_app
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

DROP POLICY task_history_append ON public.task_history;
DROP POLICY task_history_read ON public.task_history;
CREATE POLICY task_history_team_isolation ON public.task_history TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

DROP POLICY tasks_delete ON public.tasks;
DROP POLICY tasks_change ON public.tasks;
DROP POLICY tasks_create ON public.tasks;
DROP POLICY tasks_read ON public.tasks;
CREATE POLICY tasks_team_isolation ON public.tasks TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

DROP POLICY task_counters_bump ON public.task_counters;
DROP POLICY task_counters_read ON public.task_counters;
CREATE POLICY task_counters_team_isolation ON public.task_counters TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

DROP POLICY memberships_remove ON public.memberships;
DROP POLICY memberships_change ON public.memberships;
DROP POLICY memberships_add ON public.memberships;
DROP POLICY memberships_read ON public.memberships;
CREATE POLICY memberships_team_isolation ON public.memberships TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

DROP POLICY teams_delete ON public.teams;
DROP POLICY teams_rename ON public.teams;
DROP POLICY teams_read ON public.teams;
CREATE POLICY teams_visible ON public.teams FOR SELECT TO taskbase_app
    USING (created_by = taskbase_current_user_id() OR id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));
CREATE POLICY teams_create ON public.teams FOR INSERT TO taskbase_app
    WITH CHECK (created_by = taskbase_current_user_id());
CREATE POLICY teams_change ON public.teams FOR UPDATE TO taskbase_app
    USING (id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]))
    WITH CHECK (id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));
CREATE POLICY teams_delete ON public.teams FOR DELETE TO taskbase_app
    USING (id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

GRANT UPDATE, DELETE ON public.task_history TO taskbase_app;
GRANT INSERT, DELETE ON public.task_counters TO taskbase_app;
GRANT INSERT ON public.teams TO taskbase_app;

DROP FUNCTION public.taskbase_create_team(text, text, timestamptz);
CREATE OR REPLACE FUNCTION public.taskbase_visible_team_ids() RETURNS bigint[]
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        RETURN ARRAY(
            SELECT m.team_id
              FROM public.memberships m JOIN public.users u ON u.id = m.user_id
             WHERE m.user_id = public.taskbase_current_user_id() AND NOT u.disabled
            UNION
            SELECT t.id
              FROM public.teams t JOIN public.users u ON u.id = t.created_by
             WHERE t.created_by = public.taskbase_current_user_id() AND NOT u.disabled);
    END
    $$;
DROP FUNCTION public.taskbase_team_ids(text);
