--- monad.sql: what the stdlib packs know about SQL (and the few other
--- query languages an agent's database tools take): which statements
--- destroy data. deny-destructive checks with it the SQL given to a SQL
--- client on a command line (`psql -c`, `mysql -e`, ...) and the
--- statements of a database tool (kind `query`: an MCP server's `query`,
--- `execute_sql`, `write_query`, ...).
---
---     local SQL = require("monad.sql")
---     if SQL.destructive(text, SQL.runs_text(text)) then ... end

local re = require("re")

-- DROP finds the statements that drop or empty a database, a schema, a
-- table, a column or a key space, in SQL and in the shells of Redis and
-- MongoDB (FLUSHALL, db.dropDatabase(), deleteMany({})).
local DROP = [=[(?i)\b(drop\s+(database|schema|table|owned|cluster|keyspace)\b|alter\s+table\s+(if\s+exists\s+)?(only\s+)?[\w."`\[\]]+\s+drop\s+(column\b|(?:if\s+exists\s+)?[\w"`\[\]]+\s*(;|,|$))|truncate\s+(table\s+)?[\w."]+|delete\s+from\s+[\w."]+\s*(;|$)|flushall|flushdb|dropdatabase\s*\(|\.drop\s*\(\s*\)|deletemany\s*\(\s*\{\s*\}\s*\))]=]

-- RUNS_TEXT finds statements that run SQL built as text (EXECUTE,
-- PREPARE, DO blocks, psql's \gexec): there the string literals count too.
local RUNS_TEXT = [[(?i)\b(execute|exec|prepare|sp_executesql)\b|\bdo\s*(\$|')|\\gexec|\\g\b]]

-- UNFILTERED finds a DELETE or an UPDATE in one statement; WHERE finds
-- the filter that makes it touch only some rows.
local UNFILTERED = [=[(?i)^\s*(with\b.*\)\s*)?(delete\s+from|update\s+[\w."`\[\]]+(\s+(as\s+)?\w+)?\s+set)\s]=]
local WHERE = [[(?i)\bwhere\b]]

-- code returns the statements of SQL text without its string literals
-- and comments (SELECT 'DROP TABLE ' || t only builds text), unless the
-- text runs text.
local function code(sql, runs_text)
  if runs_text then
    return sql
  end
  sql = re.gsub(sql, [[(?s)/\*.*?\*/]], " ")
  sql = re.gsub(sql, [[--[^\n]*]], " ")
  sql = re.gsub(sql, [[(?s)\$\$.*?\$\$|\$[A-Za-z_]+\$.*?\$[A-Za-z_]+\$]], "''")
  return re.gsub(sql, [['([^']|'')*'?]], "''")
end

-- EXPLAIN finds a statement that only plans another (EXPLAIN without
-- ANALYZE, which would run it).
local EXPLAIN = [[(?i)^\s*explain\b]]
local ANALYZE = [[(?i)^\s*explain\s*(\([^)]*\banalyze\b|analyze\b)]]
local EXPLAIN_WORDS = [[(?i)^\s*explain(\s*\([^)]*\)|\s+(analyze|verbose))*\s*]]

-- statement_destroys says whether one statement of SQL code (without
-- literals) drops or empties something, or is a DELETE or an UPDATE with
-- no WHERE: every row.
local function statement_destroys(stmt)
  if re.find(stmt, EXPLAIN) then
    if not re.find(stmt, ANALYZE) then
      return false
    end
    stmt = re.gsub(stmt, EXPLAIN_WORDS, "") -- EXPLAIN ANALYZE runs it
  end
  if re.find(stmt, DROP) then
    return true
  end
  return re.find(stmt, UNFILTERED) ~= nil and not re.find(stmt, WHERE)
end

local M = {}

-- runs_text says whether SQL text runs text it builds (see RUNS_TEXT).
function M.runs_text(sql)
  return re.find(sql, RUNS_TEXT) ~= nil
end

-- destructive says whether a statement of SQL text would drop or empty a
-- database, schema, table or column, or change or delete every row of a
-- table (DELETE or UPDATE with no WHERE); EXPLAIN without ANALYZE runs
-- nothing. runs_text: the text (or another text
-- given with it) runs text it builds, so its string literals count.
function M.destructive(sql, runs_text)
  if type(sql) ~= "string" then
    return false
  end
  for _, stmt in ipairs(re.split(code(sql, runs_text), ";")) do
    if statement_destroys(stmt) then
      return true
    end
  end
  return false
end

-- mentions says whether text names a destructive statement anywhere,
-- string literals included: a query whose output is SQL to be run
-- (psql -Atc "SELECT 'DROP TABLE ' || t ..." | psql).
function M.mentions(text)
  return re.find(text, DROP) ~= nil
end

return M
