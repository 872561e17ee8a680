-- Half of every page of `tasks` is left free when rows are written, so that a task's next
-- version fits on its own page: PostgreSQL then updates it in place of the index entries
-- (a HOT update) instead of adding a new entry to each of the table's six indexes, and
-- prunes the old version when the page fills rather than waiting for VACUUM.
--
-- Measured (Benchmarks/README.md, W4): re-importing 1,000,000 tasks with every title
-- changed took 51-56 s at fillfactor 100, with 0.4% of the updates HOT, and 33-40 s at 50,
-- with 98% HOT; after that update the table was 748 MB at 100 and 520 MB at 50. The price
-- is paid before any update: a team freshly loaded in bulk takes twice the pages.
--
-- Only pages written from now on follow the setting; existing rows are not moved. Setting a
-- storage parameter takes a SHARE UPDATE EXCLUSIVE lock (reads and writes go on) and
-- rewrites nothing.

-- migrate:up
ALTER TABLE tasks SET (fillfactor = 50);

-- migrate:down
ALTER TABLE tasks RESET (fillfactor);
