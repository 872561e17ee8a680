-- The owner role (docs/design.md, "Trust model": defense in depth; issue #9): taskbase_owner owns every
-- object of the schema, so migrations need no superuser once this has run.
--
-- It has no login. Deployments run taskmigrate as a login role of their own that is a
-- member of it (CREATE ROLE taskbase_deploy LOGIN PASSWORD ...; GRANT taskbase_owner TO
-- taskbase_deploy); from the next migration on, the runner runs each migration as
-- taskbase_owner (SET ROLE), so what later migrations create is owned by it too.
--
-- The role running this migration creates taskbase_owner (a superuser, or in PostgreSQL 15 a
-- role with CREATEROLE) and becomes a member of it, which a non-superuser needs to hand its
-- objects over. Roles are cluster-wide: creating it and the membership tolerate a concurrent
-- creator (several databases of one cluster migrating at once), and the down section leaves
-- both in place. An existing taskbase_owner (an older docker-compose.yml named its superuser
-- so) is kept as it is.
--
-- Handed over: the tables (their identity sequences and indexes follow), the two functions
-- of 0002, and taskmigrate's own history table schema_migrations, so that a member of
-- taskbase_owner can record migrations. taskbase_visible_team_ids() is SECURITY DEFINER: it
-- now runs as taskbase_owner, which owns the tables and so, without FORCE ROW LEVEL
-- SECURITY, still reads every membership. The grants to taskbase_app stay as they were.

-- migrate:up
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'taskbase_owner') THEN
        CREATE ROLE taskbase_owner NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN
        NULL;  -- another database of this cluster created it at the same moment
END
$$;

DO $$
BEGIN
    -- Not for a superuser (it can act as any role) nor taskbase_owner itself.
    IF NOT pg_has_role(session_user, 'taskbase_owner', 'MEMBER') THEN
        GRANT taskbase_owner TO SESSION_USER;
    END IF;
EXCEPTION
    WHEN unique_violation THEN
        NULL;  -- another database of this cluster granted it at the same moment
END
$$;

GRANT USAGE, CREATE ON SCHEMA public TO taskbase_owner;

ALTER TABLE users OWNER TO taskbase_owner;
ALTER TABLE teams OWNER TO taskbase_owner;
ALTER TABLE memberships OWNER TO taskbase_owner;
ALTER TABLE task_counters OWNER TO taskbase_owner;
ALTER TABLE tasks OWNER TO taskbase_owner;
ALTER TABLE task_history OWNER TO taskbase_owner;
ALTER TABLE schema_migrations OWNER TO taskbase_owner;
ALTER FUNCTION taskbase_current_user_id() OWNER TO taskbase_owner;
ALTER FUNCTION taskbase_visible_team_ids() OWNER TO taskbase_owner;

-- migrate:down
-- The runner runs this as taskbase_owner; handing the objects back takes the migrating
-- role's own rights (a superuser, or the database's owner).
SET LOCAL ROLE NONE;

ALTER FUNCTION taskbase_visible_team_ids() OWNER TO SESSION_USER;
ALTER FUNCTION taskbase_current_user_id() OWNER TO SESSION_USER;
ALTER TABLE schema_migrations OWNER TO SESSION_USER;
ALTER TABLE task_history OWNER TO SESSION_USER;
ALTER TABLE tasks OWNER TO SESSION_USER;
ALTER TABLE task_counters OWNER TO SESSION_USER;
ALTER TABLE memberships OWNER TO SESSION_USER;
ALTER TABLE teams OWNER TO SESSION_USER;
ALTER TABLE users OWNER TO SESSION_USER;

REVOKE CREATE, USAGE ON SCHEMA public FROM taskbase_owner;
