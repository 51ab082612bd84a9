--- monad.redact: the rule engine of the redacting packs (redact-secrets,
--- redact-pii): rules find sensitive values in text, a keyword prefilter
--- keeps the cost on clean text to a few substring searches, and register
--- installs the hooks that rewrite tool results, model requests and
--- responses.
---
---     local R = require("monad.redact")
---     R.register(rules, P) -- P: the pack's matcher, events and allow

local re = require("re")

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
-- find instead is a function(s, lower) that returns candidate spans.

local MARK_OPEN = "[REDACTED:"

-- A rule whose keywords begin its value (no context before it but an
-- optional word boundary, r.bound) is matched "at" each keyword
-- occurrence with an anchored expression: a failed attempt costs a few
-- steps, where a search through the text would cost a pass of the regular
-- expression engine per window.
local function compile_rule(r)
  if r.find then
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

local function word_byte(c)
  return c ~= nil and ((c >= 97 and c <= 122) or (c >= 65 and c <= 90) or (c >= 48 and c <= 57) or c == 95)
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

-- accept appends the value s[va..vb] (at offset off of the whole text) to
-- out unless it is a marker, fails the rule's check or is allowed.
local function accept(s, va, vb, off, rule, allow, out)
  local v = string.sub(s, va, vb)
  if string.sub(v, 1, 10) ~= MARK_OPEN and (rule.check == nil or rule.check(v)) and not allowed_value(v, allow) then
    out[#out + 1] = { va + off, vb + off, rule.kind }
  end
end

-- scan appends to out the spans of rule's values in s[a0..b0]. Every
-- round moves past a match (or one byte), so it ends within the text's
-- length: no cap leaves the rest of the text unread.
local function scan(s, a0, b0, rule, allow, out)
  local sub = s
  if a0 > 1 or b0 < string.len(s) then
    sub = string.sub(s, a0, b0)
  end
  local off = a0 - 1
  local n = string.len(sub)
  local init = 1
  while init <= n do
    local a, b, c1, c2 = re.find(sub, rule.rx, init)
    if a == nil then
      break
    end
    local va, vb = a, b
    if rule.custom then
      if type(c1) == "string" and c1 ~= "" then
        local i = string.find(sub, c1, a, true)
        if i then
          va, vb = i, i + string.len(c1) - 1
        end
      end
    else
      va = a + string.len(c1 or "")
      vb = va + string.len(c2 or "") - 1
    end
    if vb >= va and not (rule.bound and word_byte(string.byte(s, va + off - 1))) then
      accept(sub, va, vb, off, rule, allow, out)
    end
    if vb >= va and vb + 1 > init then
      init = vb + 1
    elseif b >= init then
      init = b + 1
    else
      init = init + 1
    end
  end
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

-- matches appends to out the spans {start, end, kind} of the values rule
-- finds in s. Its expression runs only in windows around the occurrences
-- of its keywords (rule.back bytes before, rule.ahead after), so that the
-- cost on long text is that of a few substring searches.
local function matches(s, lower, rule, allow, out)
  local n = string.len(s)
  if rule.find then
    for _, sp in ipairs(rule.find(s, lower)) do
      accept(s, sp[1], sp[2], 0, rule, allow, out)
    end
    return
  end
  if rule.kw == nil and rule.ikw == nil then
    scan(s, 1, n, rule, allow, out)
    return
  end
  local pos = {}
  local complete = true
  for _, k in ipairs(rule.kw or {}) do
    if not hits(s, k, pos) then
      complete = false
    end
  end
  if rule.ikw then
    if string.len(lower) ~= n then
      -- lowercasing changed byte offsets (rare non-ASCII letters)
      scan(s, 1, n, rule, allow, out)
      return
    end
    for _, k in ipairs(rule.ikw) do
      if not hits(lower, k, pos) then
        complete = false
      end
    end
  end
  if not complete then
    -- more keywords than MAX_HITS: the whole text, in one pass
    scan(s, 1, n, rule, allow, out)
    return
  end
  if #pos == 0 then
    return
  end
  table.sort(pos)
  if rule.at then
    local done = 0
    for _, p in ipairs(pos) do
      if p > done and not (rule.bound and word_byte(string.byte(s, p - 1))) then
        local a, b, _, c2 = re.find(s, rule.at, p)
        if a and c2 then
          accept(s, a, a + string.len(c2) - 1, 0, rule, allow, out)
          done = b
        end
      end
    end
    return
  end
  if #pos >= 1024 then
    scan(s, 1, n, rule, allow, out)
    return
  end
  local back, ahead = rule.back or 128, rule.ahead or 640
  local wa, wb = nil, nil
  for _, p in ipairs(pos) do
    local a, b = p - back, p + ahead
    if a < 1 then
      a = 1
    end
    if b > n then
      b = n
    end
    if wa ~= nil and a <= wb + 1 then
      if b > wb then
        wb = b
      end
    else
      if wa ~= nil then
        scan(s, wa, wb, rule, allow, out)
      end
      wa, wb = a, b
    end
  end
  scan(s, wa, wb, rule, allow, out)
end

-- The prefilter: every keyword (kw in the text; ikw and a find rule's
-- words in the lowercased text) is looked up once per text, a plain
-- substring search; a rule runs only when one of its keywords occurs (a
-- rule without keywords always runs).
local function keyword_lists(rules)
  local kw, ikw, seen = {}, {}, {}
  for _, r in ipairs(rules) do
    for _, k in ipairs(r.kw or {}) do
      if not seen["k" .. k] then
        seen["k" .. k] = true
        kw[#kw + 1] = k
      end
    end
    for _, k in ipairs(r.ikw or r.words or {}) do
      if not seen["i" .. k] then
        seen["i" .. k] = true
        ikw[#ikw + 1] = k
      end
    end
    r.always = r.custom ~= nil or (r.kw == nil and r.ikw == nil and r.words == nil)
    rules.any_always = rules.any_always or r.always
  end
  rules.kwlist, rules.ikwlist = kw, ikw
end

-- found_set returns the keywords of list that occur in s, and whether any.
local function found_set(s, list)
  local set, any = {}, false
  for _, k in ipairs(list) do
    if string.find(s, k, 1, true) then
      set[k], any = true, true
    end
  end
  return set, any
end

-- wanted says whether rule may find something, given the keywords found
-- (nil: no prefilter ran).
local function wanted(rule, found, ifound)
  if found == nil or rule.always then
    return true
  end
  for _, k in ipairs(rule.kw or {}) do
    if found[k] then
      return true
    end
  end
  for _, k in ipairs(rule.ikw or rule.words or {}) do
    if ifound[k] then
      return true
    end
  end
  return false
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
  local lower = string.lower(s)
  local found, ifound = nil, nil
  if string.len(lower) == string.len(s) then
    local any, iany
    found, any = found_set(s, rules.kwlist)
    ifound, iany = found_set(lower, rules.ikwlist)
    if not any and not iany and not rules.any_always then
      return s, false
    end
  end
  local spans = {}
  for i, rule in ipairs(rules) do
    if wanted(rule, found, ifound) then
      local from = #spans
      matches(s, lower, rule, allow, spans)
      for k = from + 1, #spans do
        spans[k][4] = i
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
    return x[1] < y[1]
  end)
  local out = {}
  for _, sp in ipairs(spans) do
    local free = not in_marker(marks, sp)
    if free then
      for _, k in ipairs(out) do
        if sp[1] <= k[2] and k[1] <= sp[2] then
          free = false
          break
        end
      end
    end
    if free then
      out[#out + 1] = sp
    end
  end
  if #out == 0 then
    return s, false
  end
  table.sort(out, function(x, y) return x[1] < y[1] end)
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
  keyword_lists(rules)
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
