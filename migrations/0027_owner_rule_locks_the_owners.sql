-- The owner rule holds under REPEATABLE READ and SERIALIZABLE too.
--
-- taskbase_keep_an_enabled_owner (0008, 0023) counted a team's remaining enabled owners in the
-- transaction's snapshot after locking the team's counter row. Under READ COMMITTED (what the
-- programs use) the lock makes the second of two owners stepping down see the first's change.
-- Under REPEATABLE READ its snapshot predates that change, and taking a lock on a row another
-- transaction only locked raises no conflict: two owners of a team, each leaving or stepping
-- down in their own REPEATABLE READ transaction at once, both committed and left it ownerless
-- (typed with the runtime login, as each owner).
--
-- Now the remaining enabled owners' membership rows are locked FOR SHARE as they are counted:
-- one another transaction changed since the snapshot is a serialization failure (40001, retry)
-- under REPEATABLE READ, and under READ COMMITTED the lock reads its latest version, so a row
-- gone or changed is not counted. Only the membership rows: every change of them holds the
-- team's counter, taken just before, so the lock waits on nobody; locking the owners' users
-- rows too deadlocked an owner stepping down against an operator disabling another owner (the
-- disable holds the user row and waits for the counter). A concurrent disable under REPEATABLE
-- READ is therefore not covered; READ COMMITTED, what the programs use, is.

-- migrate:up
CREATE OR REPLACE FUNCTION public.taskbase_keep_an_enabled_owner() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
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
            PERFORM 1 FROM public.memberships m JOIN public.users u ON u.id = m.user_id
             WHERE m.team_id = team AND m.role = 'owner' AND NOT u.disabled
               FOR SHARE OF m;
            IF NOT FOUND AND EXISTS (SELECT 1 FROM public.teams t WHERE t.id = team) THEN
                RAISE EXCEPTION 'team % must keep at least one enabled owner', (SELECT t.key FROM public.teams t WHERE t.id = team)
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'teams_keep_an_enabled_owner',
                          HINT = 'make another enabled member an owner first';
            END IF;
        END LOOP;
        RETURN NULL;
    END
    $$;

-- migrate:down
CREATE OR REPLACE FUNCTION public.taskbase_keep_an_enabled_owner() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
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
