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
  events = { "[]string", { "BeforeModel", "AfterTool", "AfterModel", "AfterSubagent", "AfterTurn" } },
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
    elseif typ == "[]string" or typ == "[]regex" then
      ok = type(v) == "table"
      if ok then
        v = list_copy(v)
        for _, e in ipairs(v) do
          if type(e) ~= "string" then
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
-- A rule finds one kind of sensitive value. kw lists literal keywords: the
-- rule runs only when one occurs in the text (ikw: in the lowercased text).
-- rx is an RE2 expression; when it has a capture group, the first group is
-- the part that is replaced, else the whole match. check, when set,
-- vets the value.

local MARK_OPEN = "[REDACTED:"

-- matches returns the spans {start, end} of the values of rule in s.
local function matches(s, lower, rule, out)
  local run = rule.kw == nil and rule.ikw == nil
  if not run and rule.kw then
    for _, k in ipairs(rule.kw) do
      if string.find(s, k, 1, true) then
        run = true
        break
      end
    end
  end
  if not run and rule.ikw then
    for _, k in ipairs(rule.ikw) do
      if string.find(lower, k, 1, true) then
        run = true
        break
      end
    end
  end
  if not run then
    return
  end
  local found = re.findall(s, rule.rx)
  for _, m in ipairs(found) do
    local a, b = m[1], m[2]
    if m[3] ~= nil and m[3] > 0 then
      a, b = m[3], m[4]
    end
    if a and b and b >= a then
      local v = string.sub(s, a, b)
      if string.sub(v, 1, 10) ~= MARK_OPEN and (rule.check == nil or rule.check(v, s, a, b)) then
        local ok = true
        for _, rx in ipairs(P.allow or {}) do
          if re.find(v, rx) then
            ok = false
            break
          end
        end
        if ok then
          out[#out + 1] = { a, b, rule.kind }
        end
      end
    end
  end
end

-- redact_string returns s with every value found by rules replaced, and
-- whether anything changed.
local function redact_string(s, rules)
  if type(s) ~= "string" or string.len(s) < 6 then
    return s, false
  end
  local lower = string.lower(s)
  local spans = {}
  for _, rule in ipairs(rules) do
    matches(s, lower, rule, spans)
  end
  if #spans == 0 then
    return s, false
  end
  table.sort(spans, function(x, y)
    if x[1] ~= y[1] then
      return x[1] < y[1]
    end
    return x[2] > y[2]
  end)
  local parts, pos = {}, 1
  for _, sp in ipairs(spans) do
    if sp[1] >= pos then
      parts[#parts + 1] = string.sub(s, pos, sp[1] - 1)
      parts[#parts + 1] = MARK_OPEN .. sp[3] .. "]"
      pos = sp[2] + 1
    end
  end
  parts[#parts + 1] = string.sub(s, pos)
  return table.concat(parts), true
end

-- redact_value walks a decoded JSON value and returns it with every string
-- redacted (tables are copied only along changed paths), and whether
-- anything changed.
local function redact_value(v, rules, depth)
  if type(v) == "string" then
    return redact_string(v, rules)
  end
  if type(v) ~= "table" or depth > 64 then
    return v, false
  end
  local changed = false
  local copy = nil
  for k, e in pairs(v) do
    local ne, ch = redact_value(e, rules, depth + 1)
    if ch then
      if copy == nil then
        copy = {}
        for k2, e2 in pairs(v) do
          copy[k2] = e2
        end
      end
      copy[k] = ne
      changed = true
    end
  end
  if changed then
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

-- register hooks the rules up at every event the configuration enables.
local function register(pack, rules, cfg)
  local on = {}
  for _, e in ipairs(cfg.events) do
    on[e] = true
  end
  if on.AfterTool then
    hook{ event = "AfterTool", matcher = cfg.matcher, handler = function(input)
      local v, ch = redact_value(input.toolResult, rules, 0)
      if ch then
        return { updatedToolOutput = v }
      end
    end }
  end
  if on.BeforeModel then
    hook{ event = "BeforeModel", handler = function(input)
      local v, ch = redact_value(input.request, rules, 0)
      if ch then
        return { mutatedRequest = v }
      end
    end }
  end
  for _, ev in ipairs({ "AfterModel", "AfterTurn" }) do
    if on[ev] then
      hook{ event = ev, handler = function(input)
        local v, ch = redact_string(input.response, rules)
        if ch then
          return { mutatedText = v }
        end
      end }
    end
  end
  if on.AfterSubagent then
    hook{ event = "AfterSubagent", handler = function(input)
      local v, ch = redact_string(input.subagentResult, rules)
      if ch then
        return { mutatedText = v }
      end
    end }
  end
  local _ = pack
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
local CODE_REF = [[^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+(\(|\[|$)|^[A-Za-z_][A-Za-z0-9_]*\(|^(os|process|env|ENV|config|settings|self|this|args|opts|options|req|request|params)[.\[]]]

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

local RULES = {
  -- Private keys.
  { kind = "private-key", kw = { "PRIVATE KEY" },
    rx = [[(?s)(-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)]] },
  { kind = "private-key", kw = { "PRIVATE KEY-----" },
    rx = [[(-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:\\n|\\r|[\r\n])*[A-Za-z0-9+/=\\\r\n:,-]{40,})]] },
  { kind = "age-secret-key", kw = { "AGE-SECRET-KEY-1" }, rx = [[(AGE-SECRET-KEY-1[0-9A-Z]{58})]] },

  -- Cloud.
  { kind = "aws-access-key-id", kw = { "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA" },
    rx = B .. [[((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16})]] .. E },
  { kind = "aws-secret-access-key", ikw = { "secret", "aws" },
    rx = [[(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key|aws_?secret)["']?\s*(?:[:=]|=>|\s)\s*["']?([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])]] },
  { kind = "aws-session-token", ikw = { "session_token", "sessiontoken", "security_token", "session-token" },
    rx = [[(?i)(?:aws_?session_?token|security_?token|sessiontoken|session-token)["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{100,})]] },
  { kind = "gcp-private-key-id", kw = { "private_key_id" },
    rx = [["private_key_id"\s*:\s*"([0-9a-f]{40})"]] },
  { kind = "google-api-key", kw = { "AIza" }, rx = B .. [[(AIza[0-9A-Za-z_-]{35})]] .. E },
  { kind = "google-oauth-client-secret", kw = { "GOCSPX-" }, rx = [[(GOCSPX-[A-Za-z0-9_-]{28})]] },
  { kind = "google-oauth-token", kw = { "ya29." }, rx = B .. [[(ya29\.[0-9A-Za-z_-]{20,})]] },
  { kind = "google-refresh-token", kw = { "1//0" }, rx = B .. [[(1//0[0-9A-Za-z_-]{40,})]] },
  { kind = "azure-storage-key", ikw = { "accountkey", "sharedaccesskey" },
    rx = [[(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,88}={0,2})]] },
  { kind = "azure-sas-signature", kw = { "sig=" },
    rx = [[[?&;]sv=\d{4}-\d\d-\d\d[^\s"']*?&sig=([A-Za-z0-9%+/]{30,}(?:%3[Dd]|=){0,2})]] },
  { kind = "azure-ad-client-secret", kw = { "Q~" },
    rx = B .. [[([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})]] .. E },
  { kind = "digitalocean-token", kw = { "dop_v1_", "doo_v1_", "dor_v1_" }, rx = [[((?:dop|doo|dor)_v1_[a-f0-9]{64})]] },
  { kind = "alibaba-access-key-id", kw = { "LTAI" }, rx = B .. [[(LTAI[A-Za-z0-9]{12,20})]] .. E },

  -- Forges and registries.
  { kind = "github-pat", kw = { "ghp_" }, rx = [[(ghp_[A-Za-z0-9]{36})]] },
  { kind = "github-fine-grained-pat", kw = { "github_pat_" }, rx = [[(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})]] },
  { kind = "github-oauth-token", kw = { "gho_" }, rx = [[(gho_[A-Za-z0-9]{36})]] },
  { kind = "github-app-token", kw = { "ghu_", "ghs_" }, rx = [[((?:ghu|ghs)_[A-Za-z0-9]{36})]] },
  { kind = "github-refresh-token", kw = { "ghr_" }, rx = [[(ghr_[A-Za-z0-9]{36,76})]] },
  { kind = "gitlab-token", kw = { "glpat-", "glptt-", "glrt-", "gldt-", "glcbt-", "glft-", "glsoat-" },
    rx = [[((?:glpat|glrt|gldt|glcbt|glft|glsoat)-[A-Za-z0-9_-]{20,}|glptt-[0-9a-f]{40})]] },
  { kind = "npm-token", kw = { "npm_" }, rx = B .. [[(npm_[A-Za-z0-9]{36})]] .. E },
  { kind = "pypi-token", kw = { "pypi-" }, rx = [[(pypi-AgE[A-Za-z0-9_-]{50,})]] },
  { kind = "rubygems-token", kw = { "rubygems_" }, rx = [[(rubygems_[a-f0-9]{48})]] },
  { kind = "nuget-api-key", kw = { "oy2" }, rx = B .. [[(oy2[a-z0-9]{43})]] .. E },
  { kind = "dockerhub-pat", kw = { "dckr_pat_" }, rx = [[(dckr_pat_[A-Za-z0-9_-]{27,})]] },
  { kind = "huggingface-token", kw = { "hf_" }, rx = B .. [[(hf_[A-Za-z0-9]{34,40})]] .. E },

  -- AI providers.
  { kind = "anthropic-api-key", kw = { "sk-ant-" }, rx = [[(sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,})]] },
  { kind = "openai-api-key", kw = { "sk-" },
    rx = B .. [[(sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48})]] .. E },
  { kind = "groq-api-key", kw = { "gsk_" }, rx = B .. [[(gsk_[A-Za-z0-9]{52})]] .. E },
  { kind = "xai-api-key", kw = { "xai-" }, rx = B .. [[(xai-[A-Za-z0-9]{80})]] .. E },
  { kind = "perplexity-api-key", kw = { "pplx-" }, rx = B .. [[(pplx-[A-Za-z0-9]{48})]] .. E },
  { kind = "replicate-token", kw = { "r8_" }, rx = B .. [[(r8_[A-Za-z0-9]{37})]] .. E },

  -- SaaS.
  { kind = "slack-token", kw = { "xox" }, rx = [[(xox[bpaesr]-[0-9]{6,13}-[A-Za-z0-9-]{10,})]] },
  { kind = "slack-app-token", kw = { "xapp-" }, rx = [[(xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)]] },
  { kind = "slack-webhook", kw = { "hooks.slack.com" },
    rx = [[https://hooks\.slack\.com/((?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,})]] },
  { kind = "discord-webhook", kw = { "/api/webhooks/" },
    rx = [[https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_-]{60,})]] },
  { kind = "telegram-bot-token", kw = { ":AA" }, rx = B .. [[(\d{8,10}:AA[A-Za-z0-9_-]{33})]] .. E },
  { kind = "stripe-secret-key", kw = { "sk_live_", "sk_test_" }, rx = [[(sk_(?:live|test)_[0-9a-zA-Z]{24,99})]] },
  { kind = "stripe-restricted-key", kw = { "rk_live_", "rk_test_" }, rx = [[(rk_(?:live|test)_[0-9a-zA-Z]{24,99})]] },
  { kind = "stripe-webhook-secret", kw = { "whsec_" }, rx = [[(whsec_[A-Za-z0-9+/=]{32,})]] },
  { kind = "twilio-api-key", kw = { "SK" }, rx = B .. [[(SK[0-9a-f]{32})]] .. E },
  { kind = "twilio-auth-token", ikw = { "twilio" },
    rx = [[(?i)twilio[A-Za-z0-9_ .-]{0,20}(?:auth|token|secret)[A-Za-z0-9_]*["']?\s*[:=]\s*["']?([0-9a-f]{32})]] },
  { kind = "sendgrid-api-key", kw = { "SG." }, rx = [[(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})]] },
  { kind = "mailgun-api-key", kw = { "key-" }, rx = B .. [[(key-[0-9a-z]{32})]] .. E },
  { kind = "mailchimp-api-key", kw = { "-us" }, rx = B .. [[([0-9a-f]{32}-us\d{1,2})]] .. E },
  { kind = "shopify-token", kw = { "shpat_", "shpca_", "shppa_", "shpss_" }, rx = [[(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})]] },
  { kind = "square-token", kw = { "sq0atp-", "sq0csp-", "EAAA" },
    rx = [[(sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_+-]{60})]] },
  { kind = "linear-api-key", kw = { "lin_api_" }, rx = [[(lin_api_[A-Za-z0-9]{40})]] },
  { kind = "postman-api-key", kw = { "PMAK-" }, rx = [[(PMAK-[a-f0-9]{24}-[a-f0-9]{34})]] },
  { kind = "databricks-token", kw = { "dapi" }, rx = B .. [[(dapi[a-f0-9]{32}(?:-\d)?)]] .. E },
  { kind = "grafana-token", kw = { "glc_", "glsa_" }, rx = [[(glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})]] },
  { kind = "newrelic-api-key", kw = { "NRAK-" }, rx = [[(NRAK-[A-Z0-9]{27})]] },
  { kind = "doppler-token", kw = { "dp.pt.", "dp.st.", "dp.sa.", "dp.ct." }, rx = [[(dp\.(?:pt|st|sa|ct)\.[A-Za-z0-9]{40,44})]] },
  { kind = "vault-token", kw = { "hvs.", "hvb." }, rx = B .. [[(hv[sb]\.[A-Za-z0-9_-]{24,})]] },
  { kind = "pulumi-token", kw = { "pul-" }, rx = B .. [[(pul-[a-f0-9]{40})]] .. E },
  { kind = "supabase-token", kw = { "sbp_" }, rx = [[(sbp_[a-f0-9]{40})]] },
  { kind = "netlify-token", kw = { "nfp_" }, rx = [[(nfp_[A-Za-z0-9]{36})]] },
  { kind = "planetscale-token", kw = { "pscale_" }, rx = [[(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64})]] },
  { kind = "tailscale-key", kw = { "tskey-" }, rx = [[(tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]+)]] },
  { kind = "onepassword-token", kw = { "ops_ey" }, rx = [[(ops_eyJ[A-Za-z0-9+/=_-]{40,})]] },
  { kind = "mapbox-secret-token", kw = { "sk.eyJ" }, rx = [[(sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,})]] },
  { kind = "jwt", kw = { "eyJ" }, rx = B .. [[(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})]] },

  -- Context: URLs, headers, kube configs, assignments.
  { kind = "url-password", kw = { "://" },
    rx = [[[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'<>]{1,64}:([^\s@/"'<>]{1,128})@[A-Za-z0-9.\[-]]], check = url_password },
  { kind = "authorization-header", ikw = { "authorization", "bearer", "basic " },
    rx = [[(?i)(?:authorization["']?\s*[:=]\s*["']?\s*(?:bearer|basic|token|bot)\s+|\bbearer\s+)([A-Za-z0-9._~+/-]{12,}=*)]], check = not_placeholder },
  { kind = "kube-client-key", kw = { "client-key-data", "client-certificate-data" },
    rx = [[client-key-data:\s*([A-Za-z0-9+/=]{40,})]] },
  { kind = "npm-auth", kw = { "_auth" },
    rx = [[(?i):?_(?:authToken|auth|password)\s*=\s*["']?([^\s"']{8,})]], check = not_placeholder },
}

local GENERIC = {
  kind = "secret", ikw = { "pass", "pwd", "secret", "token", "key", "credential", "auth" },
  rx = [[(?i)(?:^|[^A-Za-z0-9])(?:[A-Za-z0-9]+[_.-])*(?:password|passwd|passphrase|pwd|secret|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key|client[_.-]?secret|(?:access|auth|api|bearer|refresh|session|bot|app)[_.-]?token|token|credentials?)["']?\s*(?::=|=>|[:=])\s*["'`]?([^\s"'`,;)}\]]{8,200})]],
  check = random_enough,
}

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
if P.generic and not disabled.secret then
  rules[#rules + 1] = GENERIC
end
for _, rx in ipairs(P.extraPatterns) do
  rules[#rules + 1] = { kind = "custom", rx = rx }
end

register(PACK, rules, P)
