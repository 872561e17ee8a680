-- Tasks gain an optional category. A nullable column without a default is a catalog-only
-- change: no table rewrite, a brief lock, and code deployed before it keeps working
-- (it never names the column). A nil category displays as "Uncategorized".

-- migrate:up
ALTER TABLE tasks ADD COLUMN category text;

-- migrate:down
ALTER TABLE tasks DROP COLUMN category;
