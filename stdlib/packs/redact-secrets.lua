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
--- keys (AWS access key ids: `AKIA`, `ASIA` or another of AWS's four-letter
--- prefixes, then 16 characters of `A-Z` and `2-7`, AWS's base32, so that
--- `AKIA1234567890ABCDEF` is not one and stays; secret and session keys; GCP service-account
--- private keys and key ids, Google API keys and OAuth secrets and tokens;
--- Azure storage keys, SAS signatures and AD client secrets; DigitalOcean),
--- forge and registry tokens (GitHub classic, fine-grained, OAuth, app and
--- refresh tokens; GitLab; npm; PyPI; RubyGems; NuGet; Docker Hub; Hugging
--- Face), AI providers (OpenAI, Anthropic, Groq, xAI, Perplexity, Replicate),
--- SaaS tokens (Slack tokens and webhooks, Discord bot tokens and webhooks,
--- Telegram bots (also inside `api.telegram.org/bot...` URLs), Stripe
--- secret, restricted and webhook keys, Twilio, SendGrid, Mailgun,
--- Mailchimp, Shopify, Square, Linear, Postman, Databricks, Grafana, New
--- Relic, Doppler (personal, service, CLI, SCIM and audit tokens), Heroku
--- (`HRKU-` and UUID keys by their name), Okta `SSWS`, Firebase Cloud
--- Messaging server keys, JFrog Artifactory, HashiCorp Vault, Pulumi,
--- Supabase, Netlify, PlanetScale, Tailscale, 1Password, Mapbox), JWTs, PEM
--- and PGP private keys (also inside JSON strings with `\n` escapes), age
--- secret keys, passwords in URLs (`redis://:pw@host` too) and Go DSNs
--- (`user:pw@tcp(host)/db`), `.pgpass` lines, docker `config.json` `"auth"` values,
--- command-line passwords (`mysql -pSECRET`, `--password=`, `sshpass -p`,
--- `docker login -p`, `echo SECRET | docker login --password-stdin`),
--- session cookies (`Cookie:`, `Set-Cookie:`, `curl -b`),
--- `Authorization: Bearer|Basic|Token` headers, and generic
--- `password=`/`secret:`/`api_key`/`token`/`*_PAT` assignments whose value looks
--- random enough (an entropy check).
---
--- Each kind has literal keywords that must occur before its expression
--- runs, all searched in one pass over the text (a keyword automaton in
--- Go, the scan module), so text without secrets costs about that pass. Redaction
--- is idempotent (a marker is never matched again) and only the secret is
--- replaced, so the output is never longer than the input by more than the
--- markers themselves. It leaves alone placeholders (`${API_KEY}`,
--- `<your-token>`, `os.environ["SECRET"]`, `xxxx`, `your-key-here`,
--- `REPLACE_ME`, values of too few distinct characters such as
--- `ghp_XXXX...`), documented examples (AWS's `...EXAMPLE` keys, jwt.io's token),
--- development defaults (`postgres://postgres:postgres@localhost`), public
--- values (Stripe publishable keys, AWS account ids, SSH public keys,
--- certificates, base64 images and data URLs, integrity hashes), hashes,
--- UUIDs and ordinary words after `password:`.

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

-- entropy returns the Shannon entropy of s in bits per character (in Go:
-- the Lua loop cost more than everything else a candidate value costs).
local entropy = require("scan").entropy

-- (A placeholder word is the whole value or followed by lowercase words:
-- secret, password123, sample_value_here; Notion's secret_<43 random
-- characters> is a token.)
local PLACEHOLDER = [[(?i)^(\$\{?[A-Za-z_]|\{\{|<[^>]*>?$|%\(?[A-Za-z_]|\[[A-Za-z_ -]*\]$|x{4,}|\*{3,}|\.{3,}|(changeme|change_me|password|passw0rd|secret|example|sample|dummy|placeholder|redacted|optional|required|todo)(?-i:[a-z0-9_.-]*)$|your[_-]|my[_-]|test[_-]?(key|token|secret)?$|none$|null$|nil$|undefined$|true$|false$|string$)]]
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

-- DEFAULT_PASSWORDS are the passwords of local development setups
-- (postgres://postgres:postgres@localhost), not secrets.
local DEFAULT_PASSWORDS = [[(?i)^(postgres|root|admin|guest|password|passwd|secret|changeme|test|pass|mysql|default|toor|user|dev|local|example|123456|12345678)$]]

-- url_password vets the password of scheme://user:password@host.
local function url_password(v)
  if v == "" or re.find(v, PLACEHOLDER) or re.match(v, [[^\$]]) or re.match(v, DEFAULT_PASSWORDS) then
    return false
  end
  return true
end

-- KNOWN_EXAMPLES are values published in documentation as examples.
local KNOWN_EXAMPLES = {
  "EXAMPLE", "ABC-DEF1234ghIkl-zyx57W2v1u123ew11", "4eC39HqLyjWDarjtT1zdp7dc",
  "not-a-real", "16C7e42F292c6912E7710c838347Ae178B4a",
  -- jwt.io's example token: {"sub":"1234567890","name":"John Doe",...}
  "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIi",
}

-- DUMMY finds the words of placeholders written where a secret goes.
local DUMMY = [[(?i)(replace[_-]?(me|with|this)|real[_-]?(secret|key|token)|insert[_-]|your[_-]|placeholder|changeme|dummy|example|redacted|x{6,}|\*{4,}|\.\.\.|<|>|\$\{|\{\{)]]

-- dummy says whether a value is a placeholder or a documented example
-- rather than a secret: it names one, or has too few distinct characters
-- to be random (ghp_XXXX..., sk_test_0000...).
local function dummy(v)
  for _, e in ipairs(KNOWN_EXAMPLES) do
    if string.find(v, e, 1, true) then
      return true
    end
  end
  if re.find(v, DUMMY) then
    return true
  end
  if string.len(v) >= 16 then
    local seen, n = {}, 0
    for i = 1, string.len(v) do
      local c = string.byte(v, i)
      if not seen[c] then
        seen[c] = true
        n = n + 1
        if n >= 8 then
          return false
        end
      end
    end
    return true
  end
  return false
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
  -- a .pgpass line: host:port:database:user:password
  { kind = "pgpass-password", kw = { ":5432:", ":*:" }, flags = "(?m)", pre = [[^[^:\s#]+:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:]],
    val = [[[^\s:]{8,}]], post = [[$]], check = function(v) return random_enough(v) end },
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
  -- also inside https://api.telegram.org/bot<token>/method
  { kind = "telegram-bot-token", kw = { ":AA" }, window = true, back = 16, ahead = 40, pre = [[(?:^|[^A-Za-z0-9_]|/bot)]], val = [[\d{8,10}:AA[A-Za-z0-9_-]{33}]], post = E },
  -- the first part is the base64 of a numeric user id: MT.., ND.., OD..
  { kind = "discord-bot-token", kw = { "MT", "MD", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT" }, bound = true,
    val = [[[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}]], post = E },
  { kind = "heroku-api-key", kw = { "HRKU-AA" }, bound = true, val = [[HRKU-AA[0-9A-Za-z_-]{58}]], post = E },
  { kind = "okta-api-token", kw = { "SSWS" }, window = true, back = 8, ahead = 64, pre = [[SSWS\s+]], val = [[00[A-Za-z0-9_-]{40}]], post = E },
  { kind = "fcm-server-key", kw = { ":APA91b" }, window = true, back = 16, ahead = 160, pre = B, val = [[AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134}]], post = E },
  { kind = "artifactory-token", kw = { "AKCp", "cmVmdGtu" }, bound = true, val = [[AKCp[A-Za-z0-9]{64,73}|cmVmdGtu[A-Za-z0-9]{50,60}]], post = E },
  { kind = "stripe-secret-key", kw = { "sk_live_", "sk_test_" }, val = [[sk_(?:live|test)_[0-9a-zA-Z]{24,99}]] },
  { kind = "stripe-restricted-key", kw = { "rk_live_", "rk_test_" }, val = [[rk_(?:live|test)_[0-9a-zA-Z]{24,99}]] },
  { kind = "stripe-webhook-secret", kw = { "whsec_" }, val = [[whsec_[A-Za-z0-9+/=]{32,}]] },
  { kind = "twilio-api-key", kw = { "SK" }, bound = true, val = [[SK[0-9a-f]{32}]], post = E },
  { kind = "sendgrid-api-key", kw = { "SG." }, val = [[SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}]] },
  { kind = "mailgun-api-key", kw = { "key-" }, bound = true, val = [[key-[0-9a-z]{32}]], post = E },
  { kind = "mailchimp-api-key", kw = { "-us" }, window = true, back = 34, ahead = 6, pre = B, val = [[[0-9a-f]{32}-us\d{1,2}]], post = E },
  { kind = "shopify-token", kw = { "shpat_", "shpca_", "shppa_", "shpss_" }, val = [[shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}]] },
  -- bound: EAAA also occurs inside the base64 of every ssh-rsa public key
  { kind = "square-token", kw = { "sq0atp-", "sq0csp-", "EAAA" }, bound = true,
    val = [[sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_+-]{60}]], post = E },
  { kind = "linear-api-key", kw = { "lin_api_" }, val = [[lin_api_[A-Za-z0-9]{40}]] },
  { kind = "postman-api-key", kw = { "PMAK-" }, val = [[PMAK-[a-f0-9]{24}-[a-f0-9]{34}]] },
  { kind = "databricks-token", kw = { "dapi" }, bound = true, val = [[dapi[a-f0-9]{32}(?:-\d)?]], post = E },
  { kind = "grafana-token", kw = { "glc_", "glsa_" }, val = [[glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}]] },
  { kind = "newrelic-api-key", kw = { "NRAK-" }, val = [[NRAK-[A-Z0-9]{27}]] },
  -- service tokens name their config: dp.st.<config>.<token>
  { kind = "doppler-token", kw = { "dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit." }, bound = true,
    val = [[dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[A-Za-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}]], post = E },
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
  -- the user may be empty (redis://:password@host)
  { kind = "url-password", kw = { "://" }, window = true, back = 24, ahead = 220,
    pre = [[[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'<>]{0,64}:]], val = [[[^\s@/"'<>]{1,128}]], post = [=[@[A-Za-z0-9.\[-]]=],
    check = url_password },
  -- Go's database/sql DSNs: user:password@tcp(host:port)/db
  { kind = "url-password", kw = { "@tcp(", "@unix(", "@udp(" }, window = true, back = 200, ahead = 8,
    pre = [[(?:^|[\s"'=`(,])[A-Za-z0-9_.-]{1,64}:]], val = [[[^\s@/"'<>:]{1,128}]], post = [[@(?:tcp|unix|udp)\(]],
    check = url_password },
}

-- assign builds an assignment rule of kind (see monad.redact): KEY
-- <separator> VALUE around each occurrence of words (lowercase), the
-- identifier around the word matching name (an RE2 expression on the
-- lowercased identifier) and value (an anchored RE2 expression whose first
-- group is the value) matching the text after it. Every occurrence of
-- every word is examined (a loop bounded by the text's length, not by a
-- count that decoys could exhaust); an identifier longer than 64 bytes is
-- judged by its last 64 before the word.
local function assign(kind, words, name, value, check)
  return { kind = kind, check = check, words = words, name = name, value = value }
end

local SEP = [=[^["']?\s*(?::=|=>|[:=])\s*["'`]?]=]

-- b64decode decodes standard base64 (nil when s is not base64).
local B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64decode(s)
  s = re.gsub(s, "=+$", "")
  if string.len(s) % 4 == 1 or re.find(s, "[^A-Za-z0-9+/]") then
    return nil
  end
  local out, bits, nbits = {}, 0, 0
  for i = 1, string.len(s) do
    bits = bits * 64 + (string.find(B64, string.sub(s, i, i), 1, true) - 1)
    nbits = nbits + 6
    if nbits >= 8 then
      nbits = nbits - 8
      local byte = math.floor(bits / 2 ^ nbits)
      out[#out + 1] = string.char(byte)
      bits = bits - byte * 2 ^ nbits
    end
  end
  return table.concat(out)
end

-- docker_auth vets a docker config.json "auth" value: base64 of
-- user:secret (base64 of plain text without a colon is something else).
local function docker_auth(v)
  local d = b64decode(v)
  if d == nil or string.len(v) < 12 then
    return false
  end
  return not (re.match(d, [[^[\x20-\x7e]*$]]) and not string.find(d, ":", 1, true))
end

-- cli_find finds the password of a command-line client: mysql -pSECRET
-- (no space: with one, -p prompts), --password=SECRET, sshpass -p SECRET.
local CLI_PASSWORD = [=[(?i)^[^\n|;&]*?\s(?:-p|--password=)(['"]?)([^\s'"$-][^\s'"]*)|^[^\n|;&]*?\s-p\s+(['"]?)([^\s'"$-][^\s'"]*)]=]
-- each_at calls fn(p) for every position p of word in lower (a loop
-- bounded by the text's length).
local function each_at(lower, word, fn)
  local init = 1
  while true do
    local p = string.find(lower, word, init, true)
    if p == nil then
      return
    end
    init = p + 1
    fn(p)
  end
end

-- line_start returns where the line that holds position p begins (looking
-- back at most 2,000 bytes).
local function line_start(s, p)
  for q = p - 1, math.max(1, p - 2000), -1 do
    if string.byte(s, q) == 10 then
      return q + 1
    end
  end
  return math.max(1, p - 2000)
end

-- add_value appends to out the span of value v, found in s from from on.
local function add_value(s, v, from, out)
  local i = v and string.find(s, v, from, true)
  if i then
    out[#out + 1] = { i, i + string.len(v) - 1 }
  end
end

local function cli_find(s, lower)
  local out = {}
  -- echo SECRET | docker login --password-stdin
  each_at(lower, "--password-stdin", function(p)
    local ls = line_start(s, p)
    local a, _, v = re.find(string.sub(s, ls, p), [=[(?:echo|printf)\s+(?:-n\s+)?(?:'%s'\s+|"%s"\s+)?['"]?([^\s'"|$]{8,})['"]?\s*\|]=])
    if a then
      add_value(s, v, ls + a - 1, out)
    end
  end)
  -- docker|podman|helm|oc|az|cf login -p SECRET / --password SECRET
  each_at(lower, "login", function(p)
    local a, _, _, v = re.find(s, [=[^[^\n|;&]*?\s(?:-p|--password)(?:=|\s+)(['"]?)([^\s'"$-][^\s'"]*)]=], p + 5)
    if a and not re.match(v or "", "^[0-9]*$") then
      add_value(s, v, a, out)
    end
  end)
  for _, k in ipairs({ "mysql", "mariadb", "sshpass" }) do
    each_at(lower, k, function(p)
      local e = p + string.len(k)
      while e <= string.len(s) and re.match(string.sub(s, e, e), "[A-Za-z0-9_-]") do
        e = e + 1
      end
      local a, _, _, v1, _, v2 = re.find(s, CLI_PASSWORD, e)
      if a and (v2 == nil or k == "sshpass") then
        add_value(s, v1 or v2, a, out)
      end
    end)
  end
  return out
end

-- COOKIE_NAME are the names of cookies that hold a session or a login.
local COOKIE_NAME = [[(?i)(sess|sid|auth|token|jwt|login|remember|identity|csrf|xsrf|credential|secret)]]

-- cookie_find finds the session values of Cookie and Set-Cookie headers
-- and of curl -b/--cookie: a session-like name with a value of 8 or more
-- characters.
-- cookie_at appends to out the session values of the cookies that follow
-- the marker mark at p (a Cookie or Set-Cookie header, curl --cookie or
-- -b): up to the end of the line or a quote, NAME=VALUE pairs split at ;.
local function cookie_at(s, lower, p, mark, out)
  local a, b, text = re.find(s, [=[^(?:["']?\s*:\s*|\s+["']?|["']?\s*=\s*["']?)([^\r\n"']+)]=], p + string.len(mark))
  if a == nil or text == nil then
    return
  end
  -- Set-Cookie: only the first pair is the cookie (the rest are attributes)
  local set = re.find(string.sub(lower, math.max(1, p - 4), p), "set-") ~= nil
  local pos = b - string.len(text) + 1
  for _, pair in ipairs(re.split(text, ";")) do
    local _, _, name, value = re.find(pair, [[^\s*([^=\s]+)=(.*)$]])
    local at = string.find(s, pair, pos, true)
    if name and value and at and re.find(name, COOKIE_NAME) and string.len(value) >= 8 and not re.find(value, PLACEHOLDER) and not dummy(value) then
      local vi = at + string.find(pair, "=", 1, true)
      value = re.gsub(value, [[\s+$]], "")
      out[#out + 1] = { vi, vi + string.len(value) - 1 }
    end
    if at then
      pos = at + string.len(pair)
    end
    if set then
      return
    end
  end
end

local function cookie_find(s, lower)
  local out = {}
  for _, mark in ipairs({ "cookie", " -b" }) do
    each_at(lower, mark, function(p)
      -- curl -b NAME=VALUE (on a line that runs curl)
      if mark == "cookie" or string.find(string.sub(lower, line_start(lower, p), p), "curl", 1, true) then
        cookie_at(s, lower, p, mark, out)
      end
    end)
  end
  return out
end

-- Assignments of known kinds, before the generic one.
local ASSIGN = {
  -- Heroku's older API keys are UUIDs: known by the name they are given
  assign("heroku-api-key", { "heroku" }, [[^heroku[a-z0-9_.-]*(?:api[_-]?key|token|auth)$]],
    SEP .. [[([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})]]),
  assign("okta-api-token", { "okta" }, [[^okta[a-z0-9_.-]*(?:api[_-]?)?token$]], SEP .. [[(00[A-Za-z0-9_-]{40})]]),
  -- docker config.json: "auth": base64 of user:password
  assign("docker-config-auth", { "auth" }, [[^auth$]], [=[^"?\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"]=], docker_auth),
  { kind = "cli-password", words = { "mysql", "mariadb", "sshpass", "login", "--password-stdin" }, find = cli_find },
  { kind = "session-cookie", words = { "cookie", " -b" }, find = cookie_find },
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
local GENERIC = assign("secret", { "pass", "pwd", "secret", "token", "key", "credential", "_pat" },
  [[^(?:[a-z0-9]+[_.-])*(?:(?:pg|mysql|my|mariadb|db|redis|mongo|postgres|admin|root|smtp|mail|ldap|vault|keystore|truststore|master|app|user|ftp)(?:password|passwd|pwd|passphrase)|password|passwd|passphrase|pwd|secret|api[_.-]?key|apikey|access[_.-]?key|auth[_.-]?key|private[_.-]?key|secret[_.-]?key|client[_.-]?secret|(?:access|auth|api|bearer|refresh|session|bot|app)[_.-]?token|token|credentials?|(?:[a-z0-9]+_)pat)(?:_(?:base|value|data|string|b64|base64|hex))?$]],
  [=[^["']?\s*(?::=|=>|[:=])\s*["'`]?([^\s"'`,;)}\]]{8,200})]=], random_enough)

local disabled = {}
for _, k in ipairs(P.disable) do
  disabled[k] = true
end
-- with_dummy makes a rule leave placeholders and documented examples alone.
local function with_dummy(r)
  local check = r.check
  r.check = function(v)
    return not dummy(v) and (check == nil or check(v))
  end
  return r
end

local rules = {}
for _, r in ipairs(RULES) do
  if not disabled[r.kind] then
    rules[#rules + 1] = with_dummy(r)
  end
end
for _, r in ipairs(ASSIGN) do
  if not disabled[r.kind] then
    rules[#rules + 1] = with_dummy(r)
  end
end
if P.generic and not disabled.secret then
  rules[#rules + 1] = with_dummy(GENERIC)
end
for _, rx in ipairs(P.extraPatterns) do
  rules[#rules + 1] = { kind = "custom", custom = rx }
end

register(rules, P)
