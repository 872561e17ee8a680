-- The change log behind the change feed (issue #16): every task change a team sees is a row
-- of task_changes, numbered per team by task_counters.last_change, which the writing
-- transaction bumps under the counter row's lock. So a team's sequences are gapless (a
-- rollback gives its number back) and strictly increasing in commit order, deletions
-- included. A NOTIFY on the team's channel is only a doorbell (it carries nothing); a
-- watcher reads what changed from here, under row-level security and the service's access
-- check, and resumes after the last sequence it saw.
--
-- kind 'bulk' is one import too large to log task by task (TaskCore's
-- TaskChange.bulkImportThreshold): its task columns are NULL and watchers reload the team.
-- The runtime role may read and append, never change or delete (rows leave with their team).

-- migrate:up
ALTER TABLE task_counters ADD COLUMN last_change bigint NOT NULL DEFAULT 0;

CREATE TABLE task_changes (
    team_id bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    sequence bigint NOT NULL CHECK (sequence > 0),
    kind text NOT NULL CHECK (kind IN ('created', 'updated', 'deleted', 'bulk')),
    task_id bigint,
    number bigint,
    version bigint,
    actor_id bigint NOT NULL,
    changed_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, sequence),
    CONSTRAINT task_changes_task_shape CHECK ((kind = 'bulk') = (task_id IS NULL AND number IS NULL AND version IS NULL))
);

GRANT SELECT, INSERT ON task_changes TO taskbase_app;

ALTER TABLE task_changes ENABLE ROW LEVEL SECURITY;
CREATE POLICY task_changes_read ON task_changes FOR SELECT TO taskbase_app
    USING (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));
CREATE POLICY task_changes_append ON task_changes FOR INSERT TO taskbase_app
    WITH CHECK (team_id = ANY ((SELECT taskbase_visible_team_ids())::bigint[]));

-- migrate:down
DROP TABLE task_changes;
ALTER TABLE task_counters DROP COLUMN last_change;
