--- monad.paths: what the stdlib packs know about paths that hold
--- credentials: protect-paths keeps tools from reading or writing them,
--- deny-destructive from sending them out of the machine.
---
---     local PATHS = require("monad.paths")
---     local kind = PATHS.secret_kind(string.lower(abs))  -- or nil

local re = require("re")

local ENV_OK = [[^\.env\.(example|sample|template|dist|defaults|schema|tpl|example\.local|local\.example|sample\.local)$|^\.env\.[a-z]+\.(example|sample|template)$]]

-- env_template says whether a (lowercased) base name is a template of an
-- environment file (.env.example), which holds no secrets.
local function env_template(base)
  return re.match(base, ENV_OK) or base == "example.env" or base == "sample.env" or re.match(base, [[^\.env\.?(example|sample|template|dist)$]])
end

-- CLI_TOKENS are the files where platform and package CLIs keep their
-- login tokens: Terraform, GitHub Copilot, Maven, Gradle, Wrangler,
-- doctl, Fly, Netlify, Vercel, Supabase, Stripe, Databricks, Snowflake,
-- OCI, IBM Cloud, Railway, Firebase, Podman.
local CLI_TOKENS = [[(^|/)(\.terraformrc|terraform\.rc|\.config/github-copilot/(hosts|apps)\.json|\.m2/settings(-security)?\.xml|\.gradle/gradle\.properties|\.wrangler/config/[^/]+|\.config/\.wrangler/config/[^/]+|doctl/config\.yaml|\.fly/config\.yml|netlify/config\.json|\.netlify/config\.json|com\.vercel\.cli/(auth|config)\.json|\.vercel/auth\.json|\.supabase/access-token|\.config/stripe/config\.toml|\.databrickscfg|\.snowsql/config|\.snowflake/(config|connections)\.toml|\.oci/config|\.bluemix/config\.json|\.ibmcloud/config\.json|\.railway/config\.json|\.config/configstore/firebase-tools\.json|\.config/containers/auth\.json|containers/auth\.json)$]]

-- HISTORIES are the history files of shells and database and language
-- clients.
local HISTORIES = [[(^|/)(\.(bash|zsh|sh|ksh|ash|psql|mysql|sqlite|python|node_repl|rediscli|irb|mongosh_repl|mongo|dbshell|lesshst|php)_?history|\.zhistory|\.histfile|\.local/share/fish/fish_history|\.mongosh/mongosh_repl_history|\.dbshell|psreadline/[^/]*_history\.txt)$]]

-- secret_kind says what credentials the (lowercased) path holds, or nil.
local function secret_kind(p)
  local base = string.match(p, "([^/]*)$") or p
  if base == ".env" or base == ".envrc" or (string.sub(base, 1, 5) == ".env." and not re.match(base, ENV_OK)) then
    return "an environment file with secrets"
  end
  if re.match(base, [[^[a-z0-9_-]+\.env$]]) and base ~= "example.env" and base ~= "sample.env" then
    return "an environment file with secrets"
  end
  if re.find(p, [[(^|/)\.ssh/]]) then
    if re.match(base, [[^(known_hosts(\.old)?|config|authorized_keys2?|.*\.pub|environment|rc)$]]) then
      return nil
    end
    return "an SSH private key"
  end
  if re.match(base, [[^id_(rsa|dsa|ecdsa|ed25519|ecdsa_sk|ed25519_sk|xmss)$]]) then
    return "an SSH private key"
  end
  if re.find(p, [[(^|/)\.aws/(credentials$|config$|sso/cache/|cli/cache/)]]) then
    return "AWS credentials"
  end
  if re.find(p, [[(^|/)(\.claude/\.credentials\.json|\.codex/auth\.json|\.gemini/(oauth_creds|google_accounts)\.json)$]]) then
    return "an agent's credentials (" .. base .. ")"
  end
  if re.match(p, [[^/proc/[^/]+/environ$]]) then
    return "a process environment (" .. p .. ")"
  end
  if re.find(p, [[(^|/)library/keychains/]]) or re.match(base, [[^.*\.keychain(-db)?$]]) then
    return "a macOS keychain"
  end
  if re.match(base, [[^(rclone\.conf|\.dev\.vars|\.?credentials(\.(json|ya?ml|toml|ini|xml|conf|cfg|txt|csv))?|.*accesskeys\.csv)$]]) then
    return "a credentials file (" .. base .. ")"
  end
  if re.match(base, [[^.*\.(kdbx|kdb|1pux|opvault|agilekeychain)$]]) then
    return "a password vault (" .. base .. ")"
  end
  if re.find(p, [[(^|/)sops/age/keys\.txt$]]) then
    return "age private keys (sops)"
  end
  if re.find(p, [[(google/chrome|google-chrome|chromium|bravesoftware|microsoft/edge|microsoft edge|vivaldi|\.mozilla/firefox|firefox/profiles)/.*/(login data|cookies|web data|logins\.json|key[34]\.db|cookies\.sqlite)$]]) then
    return "a browser's saved passwords or cookies"
  end
  if re.find(p, [[(^|/)(\.config|appdata/roaming)/gcloud(/|$)]]) then
    return "Google Cloud credentials"
  end
  if re.find(p, [[(^|/)appdata/(roaming|local)/microsoft/(credentials|protect|vault)/]]) then
    return "Windows stored credentials or their keys (Credential Manager, DPAPI)"
  end
  if re.find(p, [[(^|/)appdata/roaming/github cli/hosts\.yml$]]) then
    return "a credentials file (hosts.yml)"
  end
  if re.find(p, [[(^|/)\.azure/]]) and re.find(base, [[(token|msal|credential|accesstokens|service_principal)]]) then
    return "Azure credentials"
  end
  if re.find(p, [[(^|/)\.kube/(config[^/]*|[^/]+\.(ya?ml|kubeconfig|conf))$]]) or re.match(base, [[^(kubeconfig([-_.][^/]*)?|.*\.kubeconfig)$]]) then
    return "a Kubernetes config with cluster credentials"
  end
  if re.find(p, [[^/(var/)?run/secrets/.]]) then
    return "a mounted secret (container or Kubernetes service account)"
  end
  -- the login tokens of platform CLIs and package managers (what the
  -- families of ask-irreversible guard), as their tools store them
  if re.find(p, CLI_TOKENS) then
    return "a CLI's stored login token (" .. base .. ")"
  end
  if re.find(p, [[(^|/)\.local/share/keyrings/]]) then
    return "a desktop keyring"
  end
  if re.match(base, [[^(\.?vault[-_]?pass(word)?(\.txt)?|\.?ansible[-_]vault[-_]pass(word)?(\.txt)?)$]]) then
    return "an Ansible Vault password"
  end
  if re.match(base, [[^\.?secrets?\.(ya?ml|json|toml|ini|env|txt|properties|xml)$|^\.secrets$]]) or re.find(p, [[(^|/)\.?secrets/[^/]+\.(ya?ml|json|toml|ini|env|txt|properties|xml|key|pem|p12)$]]) then
    return "a secrets file (" .. base .. ")"
  end
  if re.find(p, HISTORIES) then
    return "a shell or client history (it holds what was typed: passwords, tokens)"
  end
  if re.find(p, [[(^|/)\.docker/config\.json$]]) then
    return "Docker registry credentials"
  end
  if re.find(p, [[(^|/)\.gnupg/]]) and not re.match(base, [[^(pubring\.kbx|pubring\.gpg|trustdb\.gpg|gpg\.conf|gpg-agent\.conf|dirmngr\.conf)$]]) then
    return "GnuPG private keys"
  end
  if re.match(base, [[^(\.netrc|_netrc|\.git-credentials|\.pgpass|\.my\.cnf|\.npmrc|\.pypirc|\.vault-token|\.boto|\.s3cfg|\.dockercfg|\.htpasswd)$]]) then
    return "a credentials file (" .. base .. ")"
  end
  if re.find(p, [[(^|/)(\.gem/credentials|\.cargo/credentials(\.toml)?|\.terraform\.d/credentials\.tfrc\.json|\.config/gh/hosts\.yml|\.config/hub|\.password-store/.*|\.config/op/.*)$]]) then
    return "a credentials file (" .. base .. ")"
  end
  if re.match(base, [[^.*\.(pem|key|p12|pfx|jks|keystore|ppk|p8|pkcs12)$]]) then
    return "a private key or keystore"
  end
  if re.match(base, [[^(credentials\.json|client_secrets?.*\.json|.*service[-_]?account.*\.json|.*adminsdk.*\.json|.*\.tfstate(\.backup)?)$]]) then
    return "a credentials file (" .. base .. ")"
  end
  if re.match(p, [[^/etc/(shadow|shadow-|gshadow|gshadow-|master\.passwd|sudoers|sudoers\.d/.*|security/opasswd)$]]) then
    return "system password data"
  end
  if re.match(p, [[^/etc/ssh/ssh_host_[a-z0-9]+_key$]]) then
    return "an SSH host key"
  end
  return nil
end

-- SECRET_DIRS are the directories that hold credentials as a whole (a
-- tool that archives or copies one sends every key in it).
local SECRET_DIRS = [[(^|/)(\.ssh|\.gnupg|\.aws|\.kube|\.azure|\.docker|\.password-store|\.config/gcloud|appdata/roaming/gcloud|appdata/(roaming|local)/microsoft/(credentials|protect|vault)|\.config/gh|\.config/op|\.config/rclone|\.codex|\.claude|library/keychains)/?$]]

-- secret_dir says what credentials the (lowercased) directory holds, or nil.
local function secret_dir(p)
  if re.find(p, SECRET_DIRS) then
    return "a directory of credentials (" .. (string.match(p, "([^/]*)/?$") or p) .. ")"
  end
  return nil
end

-- AGENT_CONFIG are the configuration files of agents and hooks: what an
-- agent runs, asks for and is kept from (its guard rails).
local AGENT_CONFIG = {
  { [[(^|/)\.claude/settings(\.[a-z0-9_-]+)?\.json$]], "Claude Code settings" },
  { [[(^|/)\.claude/hooks(/|$)]], "Claude Code hooks" },
  { [[(^|/)(\.claude\.json|managed-settings\.json)$]], "Claude Code configuration" },
  { [[(^|/)\.cursor/(hooks|mcp|cli|cli-config|permissions)\.json$|(^|/)\.cursor/hooks(/|$)]], "Cursor hooks or settings" },
  { [[(^|/)\.codex/(config\.toml|hooks\.json)$]], "Codex configuration" },
  { [[(^|/)\.gemini/settings\.json$]], "Gemini CLI settings" },
  { [[(^|/)opencode\.jsonc?$]], "OpenCode configuration" },
  { [[(^|/)\.mcp\.json$]], "the MCP server configuration" },
  { [[(^|/)\.vscode/(tasks|mcp)\.json$]], "VS Code tasks or MCP servers" },
  { [[(^|/)agents\.(json|toml)$]], "the monad-hooks configuration" },
  { [[(^|/)(documents/(windows)?powershell|\.config/powershell)/([a-z0-9_.]*profile\.ps1)$]], "a PowerShell profile (every new shell runs it)" },
}

-- agent_config says which agent or hook configuration the (lowercased)
-- path is, or nil.
local function agent_config(p)
  for _, c in ipairs(AGENT_CONFIG) do
    if re.find(p, c[1]) then
      return c[2]
    end
  end
  return nil
end

return {
  ---Returns which agent or hook configuration the lowercased path is
  ---("Claude Code settings"), or nil.
  ---@type fun(p: string): string?
  agent_config = agent_config,
  ---Returns what credentials the lowercased path (absolute, ~/..., or
  ---relative) holds, as a phrase ("an SSH private key"), or nil.
  ---@type fun(p: string): string?
  secret_kind = secret_kind,
  ---Returns what credentials the lowercased directory holds as a whole, or
  ---nil.
  ---@type fun(p: string): string?
  secret_dir = secret_dir,
  ---Says whether a lowercased base name is an environment file template
  ---(.env.example, .env.sample, ...).
  ---@type fun(base: string): boolean
  env_template = env_template,
}
