-- A task's history is reached by the task's key, and outlives the task (issue #22, item 12):
-- task_history gains `task_number`, the task's number in its team (numbers are never reused,
-- so (team_id, task_number) names one task for good). Before this, history was found through
-- the live task's id, so `task history CORE-7` of a deleted task said "not found" although
-- every entry was kept.
--
-- Existing rows are filled from the task where it still exists, else from the change log's
-- record of its deletion (task_changes, since 0006, keeps the number of every deleted task).
-- Only history of a task deleted before 0006 has no number to be found and stays NULL
-- (unreachable by key, as before). The NOT VALID check holds every row written from now on
-- to carrying a number without scanning the old ones. The index by number is 0016's,
-- built concurrently.

-- migrate:up
ALTER TABLE task_history ADD COLUMN task_number bigint;
ALTER TABLE task_history ADD CONSTRAINT task_history_task_number_check CHECK (task_number IS NOT NULL) NOT VALID;
UPDATE task_history h
   SET task_number = t.number
  FROM tasks t
 WHERE t.team_id = h.team_id AND t.id = h.task_id;
UPDATE task_history h
   SET task_number = c.number
  FROM task_changes c
 WHERE h.task_number IS NULL AND c.team_id = h.team_id AND c.task_id = h.task_id AND c.number IS NOT NULL;

-- migrate:down
ALTER TABLE task_history DROP COLUMN task_number;
