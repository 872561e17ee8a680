-- What the runtime role writes is written in the acting user's name, and the numbering the
-- team's writes share cannot be broken from SQL. Before, a member typing SQL with the runtime
-- login (security.md: "cannot rewrite history or the change log, and cannot leave a team
-- without an enabled owner") could:
--   * append history and change-log rows naming anyone as the actor (another member, someone
--     outside the team, an id nobody has), and create or edit tasks "by" anyone;
--   * rewind the team's counter, or log a change under the next sequence without taking it,
--     so every later write of the team failed on a primary key (23505) until a DBA stepped
--     in; or push the counter to bigint's end, so the next creation failed for good;
--   * change any column of a row they may change: move their owner membership to a disabled
--     user (the owner trigger watched only `role`), move a task to another team of theirs
--     past its counter and log, or change a team's key.
--
-- Now:
--   * the append and write policies check the actor columns against taskbase_current_user_id();
--   * UPDATE is granted on the columns the store writes and no others (memberships: role;
--     tasks: their values and who/when/version; task_counters: the two counters; teams: name);
--   * a row trigger lets the counters only advance, by less than 2^31 at a time (an import
--     advances them by its rows), so exhausting them takes billions of statements;
--   * a constraint trigger, deferred to commit, refuses a change-log row whose sequence the
--     counter has not reached: the writes that log a change advance the counter in the same
--     transaction;
--   * a statement trigger refuses tasks numbered past the counter (a task squatting the next
--     number made every later creation fail on tasks' primary key): the statement that inserts
--     tasks advances the counter itself, as task creation and the import's merge do. It reads
--     the statement's new rows as one transition table, per team: a row trigger, deferred or
--     not, cost an import of 100,000 tasks about 30% more time, this about 1%;
--   * the owner trigger fires on any update of an owner's membership row.
-- The functions are SECURITY DEFINER with search_path pinned and names qualified, as 0007 has
-- them, so what they read does not depend on the actor's row security. A refusal is SQLSTATE
-- 42501 (insufficient_privilege), as a policy's is.

-- migrate:up
ALTER POLICY task_history_append ON public.task_history
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[])
                AND actor_id = (SELECT public.taskbase_current_user_id()));
ALTER POLICY task_changes_append ON public.task_changes
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[])
                AND actor_id = (SELECT public.taskbase_current_user_id()));
ALTER POLICY tasks_create ON public.tasks
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[])
                AND created_by = (SELECT public.taskbase_current_user_id())
                AND updated_by = (SELECT public.taskbase_current_user_id()));
ALTER POLICY tasks_change ON public.tasks
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[])
                AND updated_by = (SELECT public.taskbase_current_user_id()));

REVOKE UPDATE ON public.memberships FROM taskbase_app;
GRANT UPDATE (role) ON public.memberships TO taskbase_app;
REVOKE UPDATE ON public.tasks FROM taskbase_app;
GRANT UPDATE (title, notes, status, priority, due_date, assignee_id, category, external_id, updated_by, updated_at, version)
    ON public.tasks TO taskbase_app;
REVOKE UPDATE ON public.task_counters FROM taskbase_app;
GRANT UPDATE (last_number, last_change) ON public.task_counters TO taskbase_app;
REVOKE UPDATE ON public.teams FROM taskbase_app;
GRANT UPDATE (name) ON public.teams TO taskbase_app;

CREATE FUNCTION public.taskbase_counters_only_advance() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF NEW.team_id <> OLD.team_id
           OR NEW.last_number < OLD.last_number OR NEW.last_number - OLD.last_number >= 2147483648
           OR NEW.last_change < OLD.last_change OR NEW.last_change - OLD.last_change >= 2147483648 THEN
            RAISE EXCEPTION 'the task counters of team % only advance, by less than 2^31 at a time', OLD.team_id
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'task numbers and change sequences are taken by the writes that use them';
        END IF;
        RETURN NEW;
    END
    $$;
REVOKE ALL ON FUNCTION public.taskbase_counters_only_advance() FROM PUBLIC;

CREATE TRIGGER task_counters_only_advance BEFORE UPDATE ON public.task_counters
    FOR EACH ROW EXECUTE FUNCTION public.taskbase_counters_only_advance();

CREATE FUNCTION public.taskbase_change_taken_from_counter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM public.task_counters c WHERE c.team_id = NEW.team_id AND c.last_change < NEW.sequence) THEN
            RAISE EXCEPTION 'change % of team % was logged without taking its sequence from the team''s counter', NEW.sequence, NEW.team_id
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'advance task_counters.last_change in the same transaction as the change it numbers';
        END IF;
        RETURN NULL;
    END
    $$;
REVOKE ALL ON FUNCTION public.taskbase_change_taken_from_counter() FROM PUBLIC;

CREATE CONSTRAINT TRIGGER task_changes_taken_from_counter AFTER INSERT ON public.task_changes
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION public.taskbase_change_taken_from_counter();

CREATE FUNCTION public.taskbase_tasks_numbered_by_counter() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp
    AS $$
    DECLARE
        squatted record;
    BEGIN
        SELECT i.team_id, i.top, c.last_number INTO squatted
          FROM (SELECT n.team_id, max(n.number) AS top FROM inserted n GROUP BY n.team_id) i
          JOIN public.task_counters c ON c.team_id = i.team_id
         WHERE i.top > c.last_number
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'task number % of team % is past the team''s counter (%)', squatted.top, squatted.team_id, squatted.last_number
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'a task takes its number by advancing task_counters.last_number in the statement that inserts it';
        END IF;
        RETURN NULL;
    END
    $$;
REVOKE ALL ON FUNCTION public.taskbase_tasks_numbered_by_counter() FROM PUBLIC;

CREATE TRIGGER tasks_numbered_by_counter AFTER INSERT ON public.tasks
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION public.taskbase_tasks_numbered_by_counter();

DROP TRIGGER memberships_keep_an_enabled_owner ON public.memberships;
CREATE TRIGGER memberships_keep_an_enabled_owner AFTER UPDATE OR DELETE ON public.memberships
    FOR EACH ROW WHEN (OLD.role = 'owner') EXECUTE FUNCTION public.taskbase_keep_an_enabled_owner();

-- migrate:down
DROP TRIGGER memberships_keep_an_enabled_owner ON public.memberships;
CREATE TRIGGER memberships_keep_an_enabled_owner AFTER UPDATE OF role OR DELETE ON public.memberships
    FOR EACH ROW WHEN (OLD.role = 'owner') EXECUTE FUNCTION public.taskbase_keep_an_enabled_owner();

DROP TRIGGER tasks_numbered_by_counter ON public.tasks;
DROP FUNCTION public.taskbase_tasks_numbered_by_counter();
DROP TRIGGER task_changes_taken_from_counter ON public.task_changes;
DROP FUNCTION public.taskbase_change_taken_from_counter();
DROP TRIGGER task_counters_only_advance ON public.task_counters;
DROP FUNCTION public.taskbase_counters_only_advance();

REVOKE UPDATE (name) ON public.teams FROM taskbase_app;
GRANT UPDATE ON public.teams TO taskbase_app;
REVOKE UPDATE (last_number, last_change) ON public.task_counters FROM taskbase_app;
GRANT UPDATE ON public.task_counters TO taskbase_app;
REVOKE UPDATE (title, notes, status, priority, due_date, assignee_id, category, external_id, updated_by, updated_at, version)
    ON public.tasks FROM taskbase_app;
GRANT UPDATE ON public.tasks TO taskbase_app;
REVOKE UPDATE (role) ON public.memberships FROM taskbase_app;
GRANT UPDATE ON public.memberships TO taskbase_app;

ALTER POLICY tasks_change ON public.tasks
    USING (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]))
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));
ALTER POLICY tasks_create ON public.tasks
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));
ALTER POLICY task_changes_append ON public.task_changes
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));
ALTER POLICY task_history_append ON public.task_history
    WITH CHECK (team_id = ANY ((SELECT public.taskbase_team_ids('member'))::bigint[]));
