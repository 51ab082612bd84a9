--- pack: redact-secrets
--- summary: Replace credentials in tool results, model requests and responses with a marker naming their kind.
--- events: BeforeModel, AfterTool, AfterModel, AfterSubagent, AfterTurn
---
--- Rewrites what flows between tools, the model and the user so that
--- credentials do not reach the model, the transcript or the final answer:
---
--- - AfterTool: the tool result (`updatedToolOutput`), walking nested JSON
---   values (every string inside tables and lists);
--- - BeforeModel: the request messages (`mutatedRequest`), walked the same
---   way;
--- - AfterModel, AfterTurn: the response text (`mutatedText`);
--- - AfterSubagent: the subagent's result (`mutatedText`).
---
--- Each secret becomes `[REDACTED:<kind>]`, e.g. `[REDACTED:aws-access-key-id]`;
--- for a secret that is recognised by its context (`password=...`,
--- `Authorization: Bearer ...`, `postgres://user:...@host`) only the value is
--- replaced and the context stays. The pack knows more than 50 kinds: cloud
--- keys (AWS access key ids, secret and session keys; GCP service-account
--- private keys and key ids, Google API keys and OAuth secrets and tokens;
--- Azure storage keys, SAS signatures and AD client secrets; DigitalOcean),
--- forge and registry tokens (GitHub classic, fine-grained, OAuth, app and
--- refresh tokens; GitLab; npm; PyPI; RubyGems; NuGet; Docker Hub; Hugging
--- Face), AI providers (OpenAI, Anthropic, Groq, xAI, Perplexity, Replicate),
--- SaaS tokens (Slack tokens and webhooks, Discord webhooks, Telegram bots,
--- Stripe secret, restricted and webhook keys, Twilio, SendGrid, Mailgun,
--- Mailchimp, Shopify, Square, Linear, Postman, Databricks, Grafana, New
--- Relic, Doppler, HashiCorp Vault, Pulumi, Supabase, Netlify, PlanetScale,
--- Tailscale, 1Password, Mapbox), JWTs, PEM and PGP private keys (also
--- inside JSON strings with `\n` escapes), age secret keys, passwords in
--- URLs, `Authorization: Bearer|Basic|token` headers, and generic
--- `password=`/`secret:`/`api_key`/`token` assignments whose value looks
--- random enough (an entropy check).
---
--- Each kind has literal keywords that must occur before its expression
--- runs, so text without secrets costs a few substring searches. Redaction
--- is idempotent (a marker is never matched again) and only the secret is
--- replaced, so the output is never longer than the input by more than the
--- markers themselves. It leaves alone placeholders (`${API_KEY}`,
--- `<your-token>`, `os.environ["SECRET"]`, `xxxx`), public values (Stripe
--- publishable keys, AWS account ids, SSH public keys, certificates),
--- hashes, UUIDs and ordinary words after `password:`.

local re = require("re")

local PACK = "redact-secrets"

local SPEC = {
  -- RE2 matched against the tool name at AfterTool: whose results are redacted ("" means every tool).
  matcher = { "regex", "" },
  -- The events to redact at; a subset of the pack's events.
  events = { "[]BeforeModel|AfterTool|AfterModel|AfterSubagent|AfterTurn", { "BeforeModel", "AfterTool", "AfterModel", "AfterSubagent", "AfterTurn" } },
  -- Kinds not to redact (e.g. "jwt").
  disable = { "[]string", {} },
  -- Extra RE2 expressions whose matches are redacted as [REDACTED:custom]; a first capture group, when present, is the part replaced.
  extraPatterns = { "[]regex", {} },
  -- RE2 expressions for values that are never redacted (known test keys, say).
  allow = { "[]regex", {} },
  -- Redact generic password=/secret:/token= assignments whose value passes the entropy check.
  generic = { "bool", true },
  -- Minimum Shannon entropy (bits per character) of a generic assignment's value.
  minEntropy = { "number", 3.0 },
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

---------------------------------------------------------------------------
-- Checks
---------------------------------------------------------------------------

-- entropy returns the Shannon entropy of s in bits per character.
local function entropy(s)
  local n = string.len(s)
  if n == 0 then
    return 0
  end
  local counts = {}
  for i = 1, n do
    local c = string.byte(s, i)
    counts[c] = (counts[c] or 0) + 1
  end
  local h = 0
  for _, c in pairs(counts) do
    local p = c / n
    h = h - p * math.log(p) / math.log(2)
  end
  return h
end

local PLACEHOLDER = [[(?i)^(\$\{?[A-Za-z_]|\{\{|<[^>]*>?$|%\(?[A-Za-z_]|\[[A-Za-z_ -]*\]$|x{4,}|\*{3,}|\.{3,}|(changeme|change_me|password|passw0rd|secret|example|sample|dummy|placeholder|redacted|your[_-]|my[_-]|test[_-]?(key|token|secret)?$|none$|null$|nil$|undefined$|true$|false$|string$|optional|required|todo))]]
local CODE_REF = [=[^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+(\(|\[|$)|^[A-Za-z_][A-Za-z0-9_]*[(\[]|^(os|process|env|ENV|config|settings|self|this|args|opts|options|req|request|params)[.\[]]=]

local function classes(v)
  local n = 0
  if re.find(v, "[a-z]") then n = n + 1 end
  if re.find(v, "[A-Z]") then n = n + 1 end
  if re.find(v, "[0-9]") then n = n + 1 end
  if re.find(v, "[^A-Za-z0-9]") then n = n + 1 end
  return n
end

-- random_enough vets the value of a generic assignment.
local function random_enough(v)
  if string.len(v) < 8 or re.find(v, PLACEHOLDER) or re.find(v, CODE_REF) then
    return false
  end
  if re.match(v, "^[0-9]+$") or re.match(v, "^[a-z]+$") or re.match(v, [[^[A-Za-z]+(_[A-Za-z]+)+$]]) then
    return false
  end
  if classes(v) < 2 then
    return false
  end
  return entropy(v) >= P.minEntropy
end

local function not_placeholder(v)
  return not re.find(v, PLACEHOLDER)
end

-- url_password vets the password of scheme://user:password@host.
local function url_password(v)
  if v == "" or re.find(v, PLACEHOLDER) or re.match(v, [[^\$]]) then
    return false
  end
  return true
end

---------------------------------------------------------------------------
-- Rules: the most specific first (a longer span at the same place wins).
---------------------------------------------------------------------------

local B = [[(?:^|[^A-Za-z0-9_])]] -- a left boundary that RE2's \b cannot express for - and .
local E = [[(?:$|[^A-Za-z0-9_])]]

-- Each rule: kind; kw (literal keywords) or ikw (keywords in the lowercased
-- text); val, the RE2 expression of the secret; pre and post, the context
-- before and after it (kept); flags; check, a function that vets the value.
local RULES = {
  -- Private keys.
  { kind = "private-key", kw = { "-----BEGIN" }, flags = "(?s)",
    val = [[-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----]] },
  { kind = "private-key", kw = { "-----BEGIN" },
    val = [[-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:\\n|\\r|[\r\n])*[A-Za-z0-9+/=\\\r\n:,-]{40,}]] },
  { kind = "age-secret-key", kw = { "AGE-SECRET-KEY-1" }, val = [[AGE-SECRET-KEY-1[0-9A-Z]{58}]] },

  -- Cloud.
  { kind = "aws-access-key-id", kw = { "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA" },
    bound = true, val = [[(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}]], post = E,
    check = function(v) return not re.find(v, "EXAMPLE$") end },
  { kind = "google-api-key", kw = { "AIza" }, bound = true, val = [[AIza[0-9A-Za-z_-]{35}]], post = E },
  { kind = "google-oauth-client-secret", kw = { "GOCSPX-" }, val = [[GOCSPX-[A-Za-z0-9_-]{28}]] },
  { kind = "google-oauth-token", kw = { "ya29." }, bound = true, val = [[ya29\.[0-9A-Za-z_-]{20,}]] },
  { kind = "google-refresh-token", kw = { "1//0" }, bound = true, val = [[1//0[0-9A-Za-z_-]{40,}]] },
  { kind = "azure-sas-signature", kw = { "sig=" }, window = true, back = 400, ahead = 160,
    pre = [[[?&;]sv=\d{4}-\d\d-\d\d[^\s"']*?&sig=]], val = [[[A-Za-z0-9%+/]{30,}(?:%3[Dd]|=){0,2}]] },
  { kind = "azure-ad-client-secret", kw = { "Q~" }, window = true, back = 8, ahead = 48, pre = B, val = [[[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}]], post = E },
  { kind = "digitalocean-token", kw = { "dop_v1_", "doo_v1_", "dor_v1_" }, val = [[(?:dop|doo|dor)_v1_[a-f0-9]{64}]] },
  { kind = "alibaba-access-key-id", kw = { "LTAI" }, bound = true, val = [[LTAI[A-Za-z0-9]{12,20}]], post = E },

  -- Forges and registries.
  { kind = "github-pat", kw = { "ghp_" }, val = [[ghp_[A-Za-z0-9]{36}]] },
  { kind = "github-fine-grained-pat", kw = { "github_pat_" }, val = [[github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}]] },
  { kind = "github-oauth-token", kw = { "gho_" }, val = [[gho_[A-Za-z0-9]{36}]] },
  { kind = "github-app-token", kw = { "ghu_", "ghs_" }, val = [[(?:ghu|ghs)_[A-Za-z0-9]{36}]] },
  { kind = "github-refresh-token", kw = { "ghr_" }, val = [[ghr_[A-Za-z0-9]{36,76}]] },
  { kind = "gitlab-token", kw = { "glpat-", "glptt-", "glrt-", "gldt-", "glcbt-", "glft-", "glsoat-" },
    val = [[(?:glpat|glrt|gldt|glcbt|glft|glsoat)-[A-Za-z0-9_-]{20,}|glptt-[0-9a-f]{40}]] },
  { kind = "npm-token", kw = { "npm_" }, bound = true, val = [[npm_[A-Za-z0-9]{36}]], post = E },
  { kind = "pypi-token", kw = { "pypi-" }, val = [[pypi-AgE[A-Za-z0-9_-]{50,}]] },
  { kind = "rubygems-token", kw = { "rubygems_" }, val = [[rubygems_[a-f0-9]{48}]] },
  { kind = "nuget-api-key", kw = { "oy2" }, bound = true, val = [[oy2[a-z0-9]{43}]], post = E },
  { kind = "dockerhub-pat", kw = { "dckr_pat_" }, val = [[dckr_pat_[A-Za-z0-9_-]{27,}]] },
  { kind = "huggingface-token", kw = { "hf_" }, bound = true, val = [[hf_[A-Za-z0-9]{34,40}]], post = E },

  -- AI providers.
  { kind = "anthropic-api-key", kw = { "sk-ant-" }, val = [[sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}]] },
  { kind = "openai-api-key", kw = { "sk-" }, bound = true,
    val = [[sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48}]], post = E },
  { kind = "groq-api-key", kw = { "gsk_" }, bound = true, val = [[gsk_[A-Za-z0-9]{52}]], post = E },
  { kind = "xai-api-key", kw = { "xai-" }, bound = true, val = [[xai-[A-Za-z0-9]{80}]], post = E },
  { kind = "perplexity-api-key", kw = { "pplx-" }, bound = true, val = [[pplx-[A-Za-z0-9]{48}]], post = E },
  { kind = "replicate-token", kw = { "r8_" }, bound = true, val = [[r8_[A-Za-z0-9]{37}]], post = E },

  -- SaaS.
  { kind = "slack-token", kw = { "xox" }, val = [[xox[bpaesr]-[0-9]{1,13}-[0-9]{6,13}-[A-Za-z0-9-]{10,}]] },
  { kind = "slack-app-token", kw = { "xapp-" }, val = [[xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+]] },
  { kind = "slack-webhook", kw = { "hooks.slack.com" }, window = true, back = 10, ahead = 200,
    pre = [[https://hooks\.slack\.com/]], val = [[(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}]] },
  { kind = "discord-webhook", kw = { "/api/webhooks/" }, window = true, back = 40, ahead = 200,
    pre = [[https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/]], val = [[[A-Za-z0-9_-]{60,}]] },
  { kind = "telegram-bot-token", kw = { ":AA" }, window = true, back = 12, ahead = 40, pre = B, val = [[\d{8,10}:AA[A-Za-z0-9_-]{33}]], post = E },
  { kind = "stripe-secret-key", kw = { "sk_live_", "sk_test_" }, val = [[sk_(?:live|test)_[0-9a-zA-Z]{24,99}]] },
  { kind = "stripe-restricted-key", kw = { "rk_live_", "rk_test_" }, val = [[rk_(?:live|test)_[0-9a-zA-Z]{24,99}]] },
  { kind = "stripe-webhook-secret", kw = { "whsec_" }, val = [[whsec_[A-Za-z0-9+/=]{32,}]] },
  { kind = "twilio-api-key", kw = { "SK" }, bound = true, val = [[SK[0-9a-f]{32}]], post = E },
  { kind = "sendgrid-api-key", kw = { "SG." }, val = [[SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}]] },
  { kind = "mailgun-api-key", kw = { "key-" }, bound = true, val = [[key-[0-9a-z]{32}]], post = E },
  { kind = "mailchimp-api-key", kw = { "-us" }, window = true, back = 34, ahead = 6, pre = B, val = [[[0-9a-f]{32}-us\d{1,2}]], post = E },
  { kind = "shopify-token", kw = { "shpat_", "shpca_", "shppa_", "shpss_" }, val = [[shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}]] },
  { kind = "square-token", kw = { "sq0atp-", "sq0csp-", "EAAA" },
    val = [[sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_+-]{60}]] },
  { kind = "linear-api-key", kw = { "lin_api_" }, val = [[lin_api_[A-Za-z0-9]{40}]] },
  { kind = "postman-api-key", kw = { "PMAK-" }, val = [[PMAK-[a-f0-9]{24}-[a-f0-9]{34}]] },
  { kind = "databricks-token", kw = { "dapi" }, bound = true, val = [[dapi[a-f0-9]{32}(?:-\d)?]], post = E },
  { kind = "grafana-token", kw = { "glc_", "glsa_" }, val = [[glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}]] },
  { kind = "newrelic-api-key", kw = { "NRAK-" }, val = [[NRAK-[A-Z0-9]{27}]] },
  { kind = "doppler-token", kw = { "dp.pt.", "dp.st.", "dp.sa.", "dp.ct." }, val = [[dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,44}]] },
  { kind = "vault-token", kw = { "hvs.", "hvb." }, bound = true, val = [[hv[sb]\.[A-Za-z0-9_-]{24,}]] },
  { kind = "pulumi-token", kw = { "pul-" }, bound = true, val = [[pul-[a-f0-9]{40}]], post = E },
  { kind = "supabase-token", kw = { "sbp_" }, val = [[sbp_[a-f0-9]{40}]] },
  { kind = "netlify-token", kw = { "nfp_" }, val = [[nfp_[A-Za-z0-9]{36}]] },
  { kind = "planetscale-token", kw = { "pscale_" }, val = [[pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}]] },
  { kind = "tailscale-key", kw = { "tskey-" }, val = [[tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]+]] },
  { kind = "onepassword-token", ahead = 8192, kw = { "ops_ey" }, val = [[ops_eyJ[A-Za-z0-9+/=_-]{40,}]] },
  { kind = "mapbox-secret-token", kw = { "sk.eyJ" }, val = [[sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}]] },
  { kind = "jwt", ahead = 16384, kw = { "eyJ" }, bound = true, val = [[eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}]] },

  -- Context: URLs, headers, kube configs, assignments.
  { kind = "url-password", kw = { "://" }, window = true, back = 24, ahead = 220,
    pre = [[[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'<>]{1,64}:]], val = [[[^\s@/"'<>]{1,128}]], post = [=[@[A-Za-z0-9.\[-]]=],
    check = url_password },
}

-- assign_find finds KEY <separator> VALUE: from the occurrences of words
-- (lowercase) it takes the identifier around each (letters, digits, _ . -),
-- which must match name (an RE2 expression on the lowercased identifier),
-- and matches value (an anchored RE2 expression whose first group is the
-- value) on the text after it. Its cost on long text is that of the
-- substring searches.
local function ident_byte(c)
  return (c >= 97 and c <= 122) or (c >= 65 and c <= 90) or (c >= 48 and c <= 57) or c == 95 or c == 46 or c == 45
end

local function assign_find(s, lower, words, name, value)
  local out = {}
  local n = string.len(s)
  if string.len(lower) ~= n then
    lower = s -- offsets must agree; fall back to the text as it is
  end
  local pos = {}
  for _, k in ipairs(words) do
    hits(lower, k, pos)
  end
  if #pos == 0 then
    return out
  end
  table.sort(pos)
  local done = 0
  for _, p in ipairs(pos) do
    if p > done then
      local a = p
      while a > 1 and p - a < 64 and ident_byte(string.byte(s, a - 1)) do
        a = a - 1
      end
      local e = p
      while e <= n and e - p < 64 and ident_byte(string.byte(s, e)) do
        e = e + 1
      end
      done = e
      if (a == 1 or not ident_byte(string.byte(s, a - 1))) and re.match(string.sub(lower, a, e - 1), name) then
        local va, _, v = re.find(s, value, e)
        if va and v and v ~= "" then
          local i = string.find(s, v, va, true)
          if i then
            out[#out + 1] = { i, i + string.len(v) - 1 }
          end
        end
      end
    end
  end
  return out
end

-- assign builds a rule of kind for assign_find.
local function assign(kind, words, name, value, check)
  return { kind = kind, check = check, words = words, find = function(s, lower)
    return assign_find(s, lower, words, name, value)
  end }
end

local SEP = [=[^["']?\s*(?::=|=>|[:=])\s*["'`]?]=]

-- Assignments of known kinds, before the generic one.
local ASSIGN = {
  assign("aws-secret-access-key", { "secret", "aws" },
    [[^(?:[a-z0-9]+[_.-])*(?:aws_?secret_?(?:access_?)?key|secret_?access_?key|aws_?secret)$]],
    [=[^["']?\s*(?:[:=]|=>|\s)\s*["']?([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])]=]),
  assign("aws-session-token", { "session_token", "sessiontoken", "security_token", "session-token" },
    [[^(?:[a-z0-9]+[_.-])*(?:aws_?session_?token|security_?token|sessiontoken|session-token)$]],
    SEP .. [[([A-Za-z0-9/+=]{100,})]]),
  assign("gcp-private-key-id", { "private_key_id" }, [[^private_key_id$]], [=[^"?\s*:\s*"([0-9a-f]{40})"]=]),
  assign("azure-storage-key", { "accountkey", "sharedaccesskey" }, [[^(?:accountkey|sharedaccesskey)$]],
    [[^\s*=\s*([A-Za-z0-9+/]{40,88}={0,2})]]),
  assign("twilio-auth-token", { "twilio" }, [[^twilio[a-z0-9_.-]{0,20}(?:auth|token|secret)[a-z0-9_]*$]],
    SEP .. [[([0-9a-f]{32})]]),
  assign("authorization-header", { "authorization", "bearer" }, [[^(?:proxy-)?authorization$|^bearer$]],
    [=[(?i)^(?:["']?\s*[:=]\s*["']?\s*(?:bearer|basic|token|bot)\s+|\s+)([A-Za-z0-9._~+/-]{12,}=*)]=], not_placeholder),
  assign("kube-client-key", { "client-key-data" }, [[^client-key-data$]], [[^:\s*([A-Za-z0-9+/=]{40,})]]),
  assign("npm-auth", { "_auth", "_password" }, [[^_(?:authtoken|auth|password)$]], [=[^\s*=\s*["']?([^\s"']{8,})]=], not_placeholder),
}

-- The generic rule: a key whose name ends in a secret word (password,
-- api_key, client_secret, auth_token, ...), with a value random enough.
local GENERIC = assign("secret", { "pass", "pwd", "secret", "token", "key", "credential" },
  [[^(?:[a-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|secret|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key|client[_.-]?secret|(?:access|auth|api|bearer|refresh|session|bot|app)[_.-]?token|token|credentials?)(?:_(?:base|value|data|string|b64|base64|hex))?$]],
  [=[^["']?\s*(?::=|=>|[:=])\s*["'`]?([^\s"'`,;)}\]]{8,200})]=], random_enough)

local disabled = {}
for _, k in ipairs(P.disable) do
  disabled[k] = true
end
local rules = {}
for _, r in ipairs(RULES) do
  if not disabled[r.kind] then
    rules[#rules + 1] = r
  end
end
for _, r in ipairs(ASSIGN) do
  if not disabled[r.kind] then
    rules[#rules + 1] = r
  end
end
if P.generic and not disabled.secret then
  rules[#rules + 1] = GENERIC
end
for _, rx in ipairs(P.extraPatterns) do
  rules[#rules + 1] = { kind = "custom", custom = rx }
end

register(rules, P)
