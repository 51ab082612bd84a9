--- monad.redact: the rule engine of the redacting packs (redact-secrets,
--- redact-pii): rules find sensitive values in text, a keyword prefilter
--- keeps the cost on clean text to one pass of a keyword automaton, and
--- register installs the hooks that rewrite tool results, model requests
--- and responses.
---
---     local R = require("monad.redact")
---     R.register(rules, P) -- P: the pack's matcher, events and allow

local re = require("re")
local scan = require("scan")

-- A rule finds one kind of sensitive value: kind names it; kw lists literal
-- keywords, ikw keywords of the lowercased text, one of which must occur for
-- the rule to run (no list: always run); val is the RE2 expression of the
-- value, pre and post the context before and after it, which is matched
-- but kept; flags prefix the expression; check, when set, vets a value;
-- bound, when set, requires a word boundary before a value that a keyword
-- begins; window marks a rule whose keyword is not at the start of its
-- value, searched in a window around each keyword, back and ahead bytes
-- (default 128 and 640). A rule with custom instead is a
-- user's expression: its first group, if any, is the value. A rule with
-- words, name and value is an assignment NAME <separator> VALUE: around
-- each occurrence of one of its words (lowercase) the identifier (letters,
-- digits, _ . -, at most 64 bytes on either side), which must match name
-- (an RE2 expression on the lowercased identifier), and the value, the
-- first group of value (an RE2 expression anchored right after the
-- identifier). A rule with find instead is a function(s, lower) that
-- returns candidate spans, called when one of its words occurs.
--
-- The rules are data: host module scan (Go) compiles them once per pool
-- (scan.rules) and finds, in one pass of a keyword automaton over the text
-- and its lowercase, the candidate values of every rule whose keywords
-- occur: at each keyword (a rule whose keywords begin its value), in
-- windows around them, or over the whole text (a rule without keywords,
-- more than 4,096 occurrences, or 1,024 for a window rule, or a lowercase
-- of another length than the text); in a window or the text, a rule's
-- expression runs only where its value can begin (scan derives that from
-- the expression). Lua resolves overlaps and vets the values it would
-- take (check, allow, markers).

local MARK_OPEN = "[REDACTED:"

-- compile_rule completes a rule for scan.rules: rx, the whole expression
-- (the context before the value and the value as groups 1 and 2), and at,
-- the same anchored, for a rule whose keywords begin its value (no
-- context before it but an optional word boundary, r.bound): it is
-- matched at each keyword occurrence, where a failed attempt costs a few
-- steps. A find rule is left to Lua (lua = true).
local function compile_rule(r)
  if r.find then
    r.lua = true
    return r
  end
  if r.name then
    return r
  end
  if r.custom then
    r.rx = r.custom
    return r
  end
  r.rx = (r.flags or "") .. "(" .. (r.pre or "") .. ")(" .. r.val .. ")" .. (r.post or "")
  if r.kw and r.pre == nil and not r.window then
    r.at = (r.flags or "") .. "^()(" .. r.val .. ")" .. (r.post or "")
  end
  return r
end

-- allowed_value says whether a value is on the allow list.
local function allowed_value(v, allow)
  for _, rx in ipairs(allow) do
    if re.find(v, rx) then
      return true
    end
  end
  return false
end

-- accepted says whether the value s[va..vb] found by rule is redacted:
-- it is not a marker, passes the rule's check and is not allowed.
local function accepted(s, va, vb, rule, allow)
  local v = string.sub(s, va, vb)
  return string.sub(v, 1, 10) ~= MARK_OPEN and (rule.check == nil or rule.check(v)) and not allowed_value(v, allow)
end

-- MAX_HITS bounds the keyword positions a rule examines one by one; past
-- it the rule's expression runs over the whole text instead (one linear
-- pass), so that decoys cannot hide a secret behind them.
local MAX_HITS = 4096

-- hits appends to pos the positions of keyword k in text while pos holds
-- fewer than MAX_HITS; it returns false when it stopped there with more
-- positions left.
local function hits(text, k, pos)
  local init = 1
  while #pos < MAX_HITS do
    local i = string.find(text, k, init, true)
    if i == nil then
      return true
    end
    pos[#pos + 1] = i
    init = i + 1
  end
  return string.find(text, k, init, true) == nil
end

-- markers returns the spans of the markers already in s ("[REDACTED:" up
-- to the next "]").
local function markers(s)
  local out = {}
  local init = 1
  while true do
    local a = string.find(s, MARK_OPEN, init, true)
    if a == nil then
      return out
    end
    local b = string.find(s, "]", a, true) or string.len(s)
    out[#out + 1] = { a, b }
    init = b + 1
  end
end

-- in_marker says whether span sp overlaps one of marks (sorted, disjoint).
local function in_marker(marks, sp)
  local lo, hi = 1, #marks
  while lo <= hi do
    local mid = math.floor((lo + hi) / 2)
    local m = marks[mid]
    if m[2] < sp[1] then
      lo = mid + 1
    elseif m[1] > sp[2] then
      hi = mid - 1
    else
      return true
    end
  end
  return false
end

-- redact_string returns s with every value found by rules replaced by a
-- marker, and whether anything changed. Where values overlap, the rule
-- listed first wins (specific kinds before contextual and generic ones),
-- then the one that starts first.
local function redact_string(s, rules, allow)
  if type(s) ~= "string" or string.len(s) < 6 then
    return s, false
  end
  local engine = rules.engine
  if engine == nil then
    error("monad.redact: the rules have not been through register", 2)
  end
  local found, wanted = engine:candidates(s)
  if #found == 0 and #wanted == 0 then
    return s, false
  end
  -- spans: start, end, kind, rule and rank of every value found; a value
  -- is vetted (accepted) only when no value taken before overlaps it (a
  -- value that is not taken changes nothing; BenchmarkRedactSecrets)
  local spans = {}
  for k = 1, #found, 3 do
    local i = found[k + 2]
    spans[#spans + 1] = { found[k], found[k + 1], rules[i].kind, i, #spans }
  end
  if #wanted > 0 then
    local lower = string.lower(s)
    for _, i in ipairs(wanted) do
      local rule = rules[i]
      for _, sp in ipairs(rule.find(s, lower)) do
        spans[#spans + 1] = { sp[1], sp[2], rule.kind, i, #spans }
      end
    end
  end
  if #spans == 0 then
    return s, false
  end
  -- markers already in the text are never matched again, in part either
  -- (https://[REDACTED:github-pat]@host is not a user and a password)
  local marks = markers(s)
  table.sort(spans, function(x, y)
    if x[4] ~= y[4] then
      return x[4] < y[4]
    end
    if x[1] ~= y[1] then
      return x[1] < y[1]
    end
    return x[5] < y[5]
  end)
  -- out: the spans taken so far, disjoint and sorted by start (so by end
  -- too); a span overlaps one of them when the last one that starts at or
  -- before its end ends at or after its start
  local out = {}
  for _, sp in ipairs(spans) do
    if not in_marker(marks, sp) then
      local lo, hi = 1, #out
      while lo <= hi do
        local mid = math.floor((lo + hi) / 2)
        if out[mid][1] <= sp[2] then
          lo = mid + 1
        else
          hi = mid - 1
        end
      end
      if (hi == 0 or out[hi][2] < sp[1]) and accepted(s, sp[1], sp[2], rules[sp[4]], allow) then
        table.insert(out, hi + 1, sp)
      end
    end
  end
  if #out == 0 then
    return s, false
  end
  local parts, pos = {}, 1
  for _, sp in ipairs(out) do
    parts[#parts + 1] = string.sub(s, pos, sp[1] - 1)
    parts[#parts + 1] = MARK_OPEN .. sp[3] .. "]"
    pos = sp[2] + 1
  end
  parts[#parts + 1] = string.sub(s, pos)
  return table.concat(parts), true
end

-- MAX_DEPTH bounds the nesting redact_value walks by recursion.
local MAX_DEPTH = 64

-- holds_secret says whether a string anywhere in v would be redacted,
-- walking v with a stack of its own (no recursion, so no depth bound);
-- every table is visited once.
local function holds_secret(v, rules, allow)
  local stack, seen = { v }, {}
  while #stack > 0 do
    local x = stack[#stack]
    stack[#stack] = nil
    if type(x) == "string" then
      local _, ch = redact_string(x, rules, allow)
      if ch then
        return true
      end
    elseif type(x) == "table" and not seen[x] then
      seen[x] = true
      for _, e in pairs(x) do
        stack[#stack + 1] = e
      end
    end
  end
  return false
end

-- redact_value walks a decoded JSON value and returns it with every string
-- redacted (tables are copied only along changed paths), and whether
-- anything changed. A table nested deeper than MAX_DEPTH that holds a
-- secret is replaced whole by a marker (fail closed).
local function redact_value(v, rules, allow, depth)
  if type(v) == "string" then
    return redact_string(v, rules, allow)
  end
  if type(v) ~= "table" then
    return v, false
  end
  if depth > MAX_DEPTH then
    if holds_secret(v, rules, allow) then
      return MARK_OPEN .. "too-deep]", true
    end
    return v, false
  end
  local copy = nil
  for k, e in pairs(v) do
    local ne, ch = redact_value(e, rules, allow, depth + 1)
    if ch then
      if copy == nil then
        copy = {}
        for k2, e2 in pairs(v) do
          copy[k2] = e2
        end
      end
      copy[k] = ne
    end
  end
  if copy ~= nil then
    return copy, true
  end
  return v, false
end

local function has(list, x)
  for _, e in ipairs(list) do
    if e == x then
      return true
    end
  end
  return false
end

-- TARGETS are what the hooks redact: the event, the input field, the
-- output field of the rewrite, and whether the value is walked as JSON (else
-- it is text). The hooks register in this order.
local TARGETS = {
  { "BeforeModel", "request", "mutatedRequest", true },
  { "AfterTool", "toolResult", "updatedToolOutput", true },
  { "AfterModel", "response", "mutatedText", false },
  { "AfterTurn", "response", "mutatedText", false },
  { "AfterSubagent", "subagentResult", "mutatedText", false },
}

-- register compiles the rules and registers a hook at every event that
-- cfg.events enables (at AfterTool, for the tools cfg.matcher matches).
local function register(rules, cfg)
  for _, r in ipairs(rules) do
    compile_rule(r)
  end
  rules.engine = scan.rules(rules)
  local allow = cfg.allow
  local on = {}
  for _, e in ipairs(cfg.events) do
    on[e] = true
  end
  for _, t in ipairs(TARGETS) do
    local ev, from, to, walk = t[1], t[2], t[3], t[4]
    if on[ev] then
      local matcher = nil
      if ev == "AfterTool" then
        matcher = cfg.matcher
      end
      hook{ event = ev, matcher = matcher, onError = "deny", handler = function(input)
        local v, ch
        if walk then
          v, ch = redact_value(input[from], rules, allow, 0)
        else
          v, ch = redact_string(input[from], rules, allow)
        end
        if ch then
          return { [to] = v }
        end
      end }
    end
  end
end

return {
  ---Compiles the rules and registers a hook at every event cfg.events
  ---enables (for the pack that calls it).
  ---@type fun(rules: table[], cfg: {matcher: string, events: string[], allow: string[]})
  register = register,
  ---@type fun(s: any, rules: table[], allow: string[]): any, boolean
  redact_string = redact_string,
  ---@type fun(v: any, rules: table[], allow: string[], depth: integer): any, boolean
  redact_value = redact_value,
  ---Appends to pos the positions of keyword k in text while pos holds
  ---fewer than 4096; returns false when it stopped there with more left.
  ---@type fun(text: string, k: string, pos: integer[]): boolean
  hits = hits,
  ---@type fun(list: any[], x: any): boolean
  has = has,
}
