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

local P = require("monad.params").check(PACK, SPEC, params)

-- The shared rule engine and hooks of the redacting packs
-- (stdlib/lib/redact.lua).
local R = require("monad.redact")
local register, has = R.register, R.has


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

-- Every occurrence of every word is examined (a loop bounded by the
-- text's length, not by a count that decoys could exhaust); an identifier
-- longer than 64 bytes is judged by its last 64 before the word.
local function assign_find(s, lower, words, name, value)
  local out = {}
  local n = string.len(s)
  if string.len(lower) ~= n then
    lower = s -- offsets must agree; fall back to the text as it is
  end
  for _, k in ipairs(words) do
    local init, done = 1, 0
    while true do
      local p = string.find(lower, k, init, true)
      if p == nil then
        break
      end
      init = p + 1
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
        if re.match(string.sub(lower, a, e - 1), name) then
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
