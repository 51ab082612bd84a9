--- pack: redact-pii
--- summary: Replace personal data (emails, phone numbers, payment cards, IBANs, US SSNs) with a marker naming its kind.
--- events: BeforeModel, AfterTool, AfterModel, AfterSubagent, AfterTurn
---
--- Opt-in companion of redact-secrets, at the same events and with the
--- same walk through nested JSON values. It replaces:
---
--- - `email`: addresses such as `jane.doe@mail.example-corp.com`, except
---   the reserved example domains (`example.com`, `.org`, `.net`,
---   `*.example`, `*.test`, `*.invalid`, `localhost`), `git@` and
---   `noreply`/`no-reply` senders, and names whose top-level domain is a
---   file extension (`icon@2x.png`);
--- - `phone`: international numbers with a `+` and a country code
---   (`+44 20 7946 0958`, `+1-415-555-0132`), and North-American numbers
---   written with separators (`(415) 555-0132`, `415-555-0132`,
---   `415.555.0132`);
--- - `card`: 13 to 19 digit payment card numbers (with spaces or dashes)
---   that have a known issuer prefix and length and pass the Luhn check;
--- - `iban`: IBANs of a known country and length that pass the mod-97
---   check, with or without spaces;
--- - `ssn`: US social security numbers written `AAA-GG-SSSS` with a valid
---   area, group and serial.
---
--- It is conservative: it leaves alone version numbers, dates and times,
--- IP addresses, hashes, UUIDs, order and invoice numbers that fail the
--- checksums, and numbers without the separators a phone number is
--- written with.

local re = require("re")

local PACK = "redact-pii"

local SPEC = {
  -- RE2 matched against the tool name at AfterTool ("" means every tool).
  matcher = { "regex", "" },
  -- The events to redact at; a subset of the pack's events.
  events = { "[]BeforeModel|AfterTool|AfterModel|AfterSubagent|AfterTurn", { "BeforeModel", "AfterTool", "AfterModel", "AfterSubagent", "AfterTurn" } },
  -- The kinds to redact: email, phone, card, iban, ssn.
  kinds = { "[]email|phone|card|iban|ssn", { "email", "phone", "card", "iban", "ssn" } },
  -- Email domains (or globs like *.corp.example) that are left alone.
  allowDomains = { "[]string", {} },
  -- RE2 expressions for values that are never redacted.
  allow = { "[]regex", {} },
}

-- common:params begin (identical in every pack; a test keeps the copies equal)
-- list_copy copies a list through indexing, so that it works on the
-- read-only proxy tables the params global is made of.
local function list_copy(v)
  local out = {}
  for i = 1, 100000 do
    local e = v[i]
    if e == nil then
      break
    end
    out[i] = e
  end
  return out
end

-- check_params returns the pack's configuration: params (the read-only
-- global of this script instance) over the defaults of spec, type-checked.
local function check_params(pack, spec)
  local given = params or {}
  for k in pairs(given) do
    if spec[k] == nil then
      error(pack .. ": unknown parameter " .. tostring(k), 0)
    end
  end
  local cfg = {}
  for k, s in pairs(spec) do
    local typ, v = s[1], given[k]
    if v == nil then
      v = s[2]
    end
    local ok = true
    if typ == "string" or typ == "regex" then
      ok = type(v) == "string"
    elseif typ == "bool" then
      ok = type(v) == "boolean"
    elseif typ == "number" then
      ok = type(v) == "number"
    elseif string.sub(typ, 1, 2) == "[]" then
      ok = type(v) == "table"
      if ok then
        v = list_copy(v)
        local choices = nil
        if string.find(typ, "|", 1, true) then
          choices = "|" .. string.sub(typ, 3) .. "|"
        end
        for _, e in ipairs(v) do
          if type(e) ~= "string" or (choices and not string.find(choices, "|" .. e .. "|", 1, true)) then
            ok = false
          end
        end
      end
    else
      ok = type(v) == "string" and string.find("|" .. typ .. "|", "|" .. v .. "|", 1, true) ~= nil
    end
    if not ok then
      error(pack .. ": parameter " .. k .. ": want " .. typ .. ", got " .. type(v), 0)
    end
    if typ == "regex" then
      local good, err = pcall(re.find, "", v)
      if not good then
        error(pack .. ": parameter " .. k .. ": invalid regular expression: " .. tostring(err), 0)
      end
    elseif typ == "[]regex" then
      for i, e in ipairs(v) do
        local good, err = pcall(re.find, "", e)
        if not good then
          error(pack .. ": parameter " .. k .. " item " .. i .. ": invalid regular expression: " .. tostring(err), 0)
        end
      end
    end
    cfg[k] = v
  end
  return cfg
end
-- common:params end
local P = check_params(PACK, SPEC)

-- common:redact begin (identical in redact-secrets and redact-pii)
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

-- scan appends to out the spans of rule's values in s[a0..b0].
local function scan(s, a0, b0, rule, allow, out)
  local sub = s
  if a0 > 1 or b0 < string.len(s) then
    sub = string.sub(s, a0, b0)
  end
  local off = a0 - 1
  local n = string.len(sub)
  local init = 1
  for _ = 1, 100000 do
    if init > n then
      break
    end
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
    if vb >= va then
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

-- hits appends to pos the positions of keyword k in text (at most 4096).
local function hits(text, k, pos)
  local init = 1
  for _ = 1, 4096 do
    local i = string.find(text, k, init, true)
    if i == nil then
      return
    end
    pos[#pos + 1] = i
    init = i + 1
  end
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
  for _, k in ipairs(rule.kw or {}) do
    hits(s, k, pos)
  end
  if rule.ikw then
    if string.len(lower) ~= n then
      -- lowercasing changed byte offsets (rare non-ASCII letters)
      scan(s, 1, n, rule, allow, out)
      return
    end
    for _, k in ipairs(rule.ikw) do
      hits(lower, k, pos)
    end
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
  table.sort(spans, function(x, y)
    if x[4] ~= y[4] then
      return x[4] < y[4]
    end
    return x[1] < y[1]
  end)
  local kept = {}
  for _, sp in ipairs(spans) do
    local free = true
    for _, k in ipairs(kept) do
      if sp[1] <= k[2] and k[1] <= sp[2] then
        free = false
        break
      end
    end
    if free then
      kept[#kept + 1] = sp
    end
  end
  table.sort(kept, function(x, y) return x[1] < y[1] end)
  local parts, pos = {}, 1
  for _, sp in ipairs(kept) do
    parts[#parts + 1] = string.sub(s, pos, sp[1] - 1)
    parts[#parts + 1] = MARK_OPEN .. sp[3] .. "]"
    pos = sp[2] + 1
  end
  parts[#parts + 1] = string.sub(s, pos)
  return table.concat(parts), true
end

-- redact_value walks a decoded JSON value and returns it with every string
-- redacted (tables are copied only along changed paths), and whether
-- anything changed.
local function redact_value(v, rules, allow, depth)
  if type(v) == "string" then
    return redact_string(v, rules, allow)
  end
  if type(v) ~= "table" or depth > 64 then
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

-- register compiles the rules and registers a hook at every event that
-- cfg.events enables.
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
  if on.BeforeModel then
    hook{ event = "BeforeModel", handler = function(input)
      local v, ch = redact_value(input.request, rules, allow, 0)
      if ch then
        return { mutatedRequest = v }
      end
    end }
  end
  if on.AfterTool then
    hook{ event = "AfterTool", matcher = cfg.matcher, handler = function(input)
      local v, ch = redact_value(input.toolResult, rules, allow, 0)
      if ch then
        return { updatedToolOutput = v }
      end
    end }
  end
  for _, ev in ipairs({ "AfterModel", "AfterTurn" }) do
    if on[ev] then
      hook{ event = ev, handler = function(input)
        local v, ch = redact_string(input.response, rules, allow)
        if ch then
          return { mutatedText = v }
        end
      end }
    end
  end
  if on.AfterSubagent then
    hook{ event = "AfterSubagent", handler = function(input)
      local v, ch = redact_string(input.subagentResult, rules, allow)
      if ch then
        return { mutatedText = v }
      end
    end }
  end
end
-- common:redact end
for _, e in ipairs(P.events) do
  if not has({ "BeforeModel", "AfterTool", "AfterModel", "AfterSubagent", "AfterTurn" }, e) then
    error(PACK .. ": parameter events: " .. e .. " is not one of BeforeModel, AfterTool, AfterModel, AfterSubagent, AfterTurn", 0)
  end
end
for _, k in ipairs(P.kinds) do
  if not has({ "email", "phone", "card", "iban", "ssn" }, k) then
    error(PACK .. ": parameter kinds: unknown kind " .. k .. " (want email, phone, card, iban or ssn)", 0)
  end
end

local function digits(s)
  return re.gsub(s, "[^0-9]", "")
end

-- luhn reports whether a digit string passes the Luhn check.
local function luhn(d)
  local sum, alt = 0, false
  for i = string.len(d), 1, -1 do
    local n = string.byte(d, i) - 48
    if alt then
      n = n * 2
      if n > 9 then
        n = n - 9
      end
    end
    sum = sum + n
    alt = not alt
  end
  return sum % 10 == 0
end

-- card_ok checks issuer prefix, length and Luhn.
local function card_ok(v)
  local d = digits(v)
  local n = string.len(d)
  if n < 13 or n > 19 then
    return false
  end
  if string.rep(string.sub(d, 1, 1), n) == d then
    return false
  end
  local ok =
    (re.match(d, "^4") and (n == 13 or n == 16 or n == 19)) or
    (re.match(d, "^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))") and n == 16) or
    (re.match(d, "^3[47]") and n == 15) or
    (re.match(d, "^(6011|65|64[4-9]|622)") and n >= 16) or
    (re.match(d, "^35(2[89]|[3-8][0-9])") and n >= 16) or
    (re.match(d, "^(30[0-5]|36|38|39)") and n >= 14) or
    (re.match(d, "^(62|81)") and n >= 16)
  if not ok then
    return false
  end
  -- grouping: all digits, or groups separated consistently
  if string.find(v, "[ -]") and not re.match(v, [[^\d{4}([ -]\d{4}){2,3}([ -]\d{1,3})?$|^\d{4}[ -]\d{6}[ -]\d{4,5}$]]) then
    return false
  end
  return luhn(d)
end

local IBAN_LEN = {
  AD = 24, AE = 23, AL = 28, AT = 20, AZ = 28, BA = 20, BE = 16, BG = 22, BH = 22, BR = 29,
  BY = 28, CH = 21, CR = 22, CY = 28, CZ = 24, DE = 22, DK = 18, DO = 28, EE = 20, EG = 29,
  ES = 24, FI = 18, FO = 18, FR = 27, GB = 22, GE = 22, GI = 23, GL = 18, GR = 27, GT = 28,
  HR = 21, HU = 28, IE = 22, IL = 23, IQ = 23, IS = 26, IT = 27, JO = 30, KW = 30, KZ = 20,
  LB = 28, LC = 32, LI = 21, LT = 20, LU = 20, LV = 21, MC = 27, MD = 24, ME = 22, MK = 19,
  MR = 27, MT = 31, MU = 30, NL = 18, NO = 15, PK = 24, PL = 28, PS = 29, PT = 25, QA = 29,
  RO = 24, RS = 22, SA = 24, SC = 31, SE = 24, SI = 19, SK = 24, SM = 27, ST = 25, SV = 28,
  TL = 23, TN = 24, TR = 26, UA = 29, VA = 22, VG = 24, XK = 20,
}

-- iban_ok checks the country length and the mod-97 checksum.
local function iban_ok(v)
  local s = string.upper(re.gsub(v, " ", ""))
  local cc = string.sub(s, 1, 2)
  if IBAN_LEN[cc] == nil or IBAN_LEN[cc] ~= string.len(s) then
    return false
  end
  local r = string.sub(s, 5) .. string.sub(s, 1, 4)
  local rem = 0
  for i = 1, string.len(r) do
    local c = string.byte(r, i)
    if c >= 48 and c <= 57 then
      rem = (rem * 10 + (c - 48)) % 97
    elseif c >= 65 and c <= 90 then
      rem = (rem * 100 + (c - 55)) % 97
    else
      return false
    end
  end
  return rem == 1
end

local function ssn_ok(v)
  local a, g, s = string.match(v, "^(%d%d%d)%-(%d%d)%-(%d%d%d%d)$")
  if a == nil or a == "000" or a == "666" or string.sub(a, 1, 1) == "9" or g == "00" or s == "0000" then
    return false
  end
  if a .. g .. s == "123456789" or a .. g .. s == "078051120" then
    return true
  end
  return true
end

local EXT_TLD = [[(?i)\.(png|jpe?g|gif|svg|webp|ico|bmp|js|mjs|ts|tsx|jsx|css|scss|map|json|lock|md|txt|py|go|rs|rb|java|kt|h|c|cpp|html?|xml|ya?ml|toml|zip|gz|tgz|wasm|so|dll|exe|bin|pdf|log|csv)$]]

local ALLOW_DOM = {}
for _, g in ipairs(P.allowDomains) do
  ALLOW_DOM[#ALLOW_DOM + 1] = "(?i)^" .. re.gsub(re.gsub(g, [[([.+?^$(){}\[\]|\\])]], [[\$1]]), [[\*]], ".*") .. "$"
end

local function email_ok(v)
  local user, dom = string.match(v, "^(.*)@(.*)$")
  if user == nil then
    return false
  end
  local ldom = string.lower(dom)
  local luser = string.lower(user)
  if re.match(ldom, [[(^|\.)(example\.(com|org|net)|example|test|invalid|localhost|local)$]]) then
    return false
  end
  if luser == "git" or re.find(luser, "^(no-?reply|donotreply|do-not-reply)") or re.find(ldom, "(^|\\.)users\\.noreply\\.github\\.com$") then
    return false
  end
  if re.find(ldom, EXT_TLD) or re.find(ldom, [[\.[0-9]+$]]) then
    return false
  end
  for _, rx in ipairs(ALLOW_DOM) do
    if re.match(ldom, rx) then
      return false
    end
  end
  return true
end

local function phone_ok(v)
  local d = digits(v)
  local n = string.len(d)
  if string.sub(v, 1, 1) == "+" then
    return n >= 8 and n <= 15
  end
  return n == 10 or n == 11
end

local ALL = {
  email = { kind = "email", kw = { "@" }, pre = [[(?:^|[^A-Za-z0-9._%+-])]],
    val = [[[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}]],
    post = [[(?:$|[^A-Za-z0-9_-])]], check = email_ok },
  phone = { kind = "phone", pre = [[(?:^|[^\w.+/:-])]],
    val = [[\+[1-9]\d{0,2}(?:[ .-]\(?\d{1,5}\)?){1,5}[ .-]\d{2,8}|\+[1-9]\d{7,14}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|1[ .-]\d{3}[ .-]\d{3}[ .-]\d{4}]],
    post = [[(?:$|[^\w.:/-])]], check = phone_ok },
  card = { kind = "card", pre = [[(?:^|[^\w.-])]],
    val = [[\d{4}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{4}[ -]?\d{6}[ -]?\d{4,5}|\d{13,19}]],
    post = [[(?:$|[^\w.-])]], check = card_ok },
  iban = { kind = "iban", pre = [[(?:^|[^A-Za-z0-9])]],
    val = [[[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?]],
    post = [[(?:$|[^A-Za-z0-9])]], check = iban_ok },
  ssn = { kind = "ssn", kw = { "-" }, pre = [[(?:^|[^\w.-])]], val = [[\d{3}-\d{2}-\d{4}]],
    post = [[(?:$|[^\w.-])]], check = ssn_ok },
}

local rules = {}
for _, k in ipairs({ "email", "card", "iban", "ssn", "phone" }) do
  if has(P.kinds, k) then
    rules[#rules + 1] = ALL[k]
  end
end

register(rules, P)
