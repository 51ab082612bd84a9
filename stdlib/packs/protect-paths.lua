--- pack: protect-paths
--- summary: Keep agents away from credentials, git internals and files outside the project root.
--- events: BeforeTool
--- kinds: read, write, edit, delete, fetch, patch, shell
--- needs: home, root
---
--- Checks the paths of every file-tool call (the tools of kind `read`,
--- `write`, `edit`, `delete` and `fetch` in the engine's tool table, whose
--- paths the table locates: `Read`, `Write`, `Edit`, `MultiEdit`,
--- `NotebookEdit`, `read_file`, `write_file`, `replace`, `view`, `write`,
--- `edit`, `multiedit`, `download`, ..., and the host's own declared
--- tools), the files that patches touch (kind `patch`: `apply_patch`) and
--- the paths that shell commands (kind `shell`) read, write or delete, and
--- applies one policy per operation (a tool of kind `read` reads, of kind
--- `delete` deletes, the others write):
---
--- - **credentials** (`read`, `write`, `delete`): `.env` and `.env.*` files
---   (but not `.env.example`, `.env.sample`, `.env.template`, `.env.dist`),
---   `.envrc`, SSH private keys (`~/.ssh/*` but not `*.pub`, `known_hosts`,
---   `config`, `authorized_keys`), `~/.aws/credentials`, `~/.aws/config`
---   and the AWS SSO cache, `~/.config/gcloud`, `~/.azure`, kubeconfigs
---   (`~/.kube/config`, `~/.kube/*.yaml`, `*.kubeconfig`), mounted secrets
---   (`/run/secrets/`, `/var/run/secrets/`),
---   `~/.docker/config.json`, `.npmrc`, `.pypirc`, `.netrc`,
---   `.git-credentials`, `.pgpass`, `.my.cnf`, cargo, gem, terraform and gh
---   credentials, `~/.gnupg`, `.vault-token`, `*.pem`, `*.key`, `*.p12`,
---   `*.pfx`, `*.jks`, `*.keystore`, `*.ppk`, `id_rsa`-style key files,
---   `credentials.json`, `client_secret*.json`, `*service-account*.json`,
---   `*adminsdk*.json`, `credentials` files (`credentials`, `.credentials`,
---   `credentials.yml`, ...), AWS `*accessKeys.csv`, `*.tfstate`, agents'
---   credentials (`~/.claude/.credentials.json`, `~/.codex/auth.json`,
---   `~/.gemini/oauth_creds.json`), `rclone.conf`, macOS keychains,
---   password vaults (`*.kdbx`, `*.1pux`, ...), browsers' saved passwords
---   and cookies, desktop keyrings, sops age keys, `.dev.vars`, the login
---   tokens of platform and package CLIs (`.terraformrc`, Copilot, Maven
---   `~/.m2/settings.xml`, `~/.gradle/gradle.properties`, wrangler, doctl,
---   fly, netlify, vercel, supabase, stripe, databricks, snowsql, oci,
---   firebase, podman `auth.json`), Ansible Vault password files, secrets
---   files (`secrets.yml`, `secrets/*.json`, ...), shell and database
---   client histories (`~/.bash_history`, `~/.psql_history`, ...),
---   `/proc/*/environ`, `/etc/shadow`, `/etc/gshadow`, `/etc/sudoers`, SSH
---   host keys — plus `extraSecrets`; `chmod` that only takes access away
---   (`chmod 600 ~/.ssh/id_ed25519`) is not a write of them, and `cp
---   .env.example .env` writes a template, not secrets;
--- - **agent and hook configuration** (`agentConfig`; writes and deletes):
---   what an agent runs, asks for and is kept from, so its own guard rails
---   — `.claude/settings*.json`, `.claude/hooks/`, `~/.claude.json`,
---   `.cursor/hooks.json` and `mcp.json`, `.codex/config.toml`,
---   `.gemini/settings.json`, `opencode.json`, `.mcp.json`,
---   `.vscode/tasks.json` and `mcp.json`, monad-hooks' `agents.json` and
---   `agents.toml`, the files and folders monad-hooks' configuration is
---   read from (its configuration files, its command hooks' scripts, its
---   Lua scripts and their folders, as the host gives them), plus
---   `extraConfig` (your policy files); reading them is fine;
--- - **git internals** (`write`, `delete`): anything inside a `.git`
---   directory (hooks, config, objects) but a stale lock (`rm
---   .git/index.lock`); reading them is fine;
--- - **outside the root** (`outside`): writing or deleting anything that is
---   not under the sandbox root (`root`, or the input's `cwd`, or when the
---   input has none the host's sandbox root, `--root`), except
---   `writableOutside` (`/tmp/**`, `/dev/null`, caches such as
---   `~/.cache/**`, ...).
---
--- Paths are compared after the tricks an agent might (or might be told to)
--- use: `..` and `.` segments, `~`, `~user`, `$HOME` and `${HOME}`, doubled
--- slashes, backslashes, `file://` URLs, `/proc/self/root` and
--- `/proc/self/cwd`, macOS `/private/etc`, and letter case.
---
--- Patches are checked through their `*** Add/Update/Delete File:` and
--- `---`/`+++` headers, also when Codex sends them through its shell tool
--- (`apply_patch 'PATCH'`, `apply_patch <<'EOF' ... EOF`).
---
--- Shell commands are parsed: their operands are
--- reads (a directory of credentials too: `grep -r x ~/.aws`), except the
--- operands of `rm`/`shred`/`unlink` (deletes), output
--- redirections, `tee`, `sponge`, `touch`, `truncate`, `mkdir`, `sed -i`, `dd of=`
--- and the destination of `cp`/`mv`/`install`/`ln`/`rsync` (writes), and
--- `mv` sources (deletes). `curl -F x=@file` and `--data @file` are reads.
--- The string literals of a one-line program (`python3 -c`, `node -e`, ...)
--- are reads, and writes of agent configuration when the program writes.
--- Words that are not paths are left alone: what `echo` and `printf`
--- print, the pattern of `grep`/`rg`, the `-name` of `find`, commit
--- messages. `source .env`, `. .env` and `--env-file .env` load a file
--- without showing it and are allowed, as are a key given to `ssh`,
--- `scp`, `sftp` (`-i KEY`, `-o IdentityFile=KEY`, `rsync -e "ssh -i
--- KEY"`), loaded by `ssh-add` or fingerprinted (`ssh-keygen -l`, `-y`).
--- A `cd` or `pushd` moves the relative paths of the commands after it
--- (`cd .. && rm -rf other` deletes `../other`). Variables set earlier
--- on the line (`NAME=VALUE`, `export`, `declare`, `local`) are put in
--- as the shell does, their values expanded when they are set (chains of
--- variables, `${NAME}`, defaults and operators, substitutions that only
--- print): `D=~/.ssh; cat "$D/id_rsa"` reads a key, `HOME=/etc; cat
--- "$HOME/shadow"` reads `/etc/shadow`, and `HOME=$(mktemp -d); rm -rf
--- "$HOME"` deletes a new folder, not the home directory (a command's
--- own `HOME=... cmd "$HOME"` is not yet set for its words).
---
--- PowerShell and cmd.exe lines (a tool whose commands are PowerShell,
--- such as Claude Code's `PowerShell`; an argv of `powershell -Command` or
--- `cmd /c`; a line sent as POSIX that names what only PowerShell runs)
--- are parsed too: `Get-Content`/`gc`/`type`/`cat`, `Select-String`,
--- `Import-Csv`, `Copy-Item` sources, `Invoke-WebRequest -InFile` and
--- `[IO.File]::ReadAllText('...')` read; `Set-Content`, `Add-Content`,
--- `Out-File`, `Tee-Object`, `New-Item`, `Export-Csv`, `Copy-Item` and
--- `Move-Item` destinations, `-OutFile` and `>`/`>>` write; `Remove-Item`
--- deletes. Windows paths are read in the same notions: backslashes,
--- drive letters (`C:\Users\me\.ssh\id_rsa`), `~`, `$HOME`,
--- `$env:USERPROFILE`, `%USERPROFILE%`, `$env:APPDATA` and `%APPDATA%`,
--- `$env:LOCALAPPDATA`, and `$PROFILE` (the PowerShell profile, which
--- every new shell runs, is protected like agent configuration); Windows
--- stores of credentials (`%APPDATA%\Microsoft\Credentials`, `Protect`,
--- `Vault`, `%APPDATA%\gcloud`, GitHub CLI's `hosts.yml`) and
--- PowerShell's history (`PSReadLine\ConsoleHost_history.txt`) are
--- credentials. Variables set on a PowerShell line are not followed.

local re = require("re")

local PACK = "protect-paths"

local SPEC = {
  -- Deprecated (declare the tool with its kind instead): RE2 matched against the names of file tools the tool table does not know.
  matcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the path of the tools matcher names (a string or a list of strings).
  pathFields = { "[]string", { "path", "file_path", "filePath", "filename", "file", "notebook_path", "paths", "target_file" } },
  -- Deprecated: RE2 matched against the name of a tool matcher names: the tools that only read.
  readTools = { "regex", "(?i)(read|view|cat|open|get|list|glob|grep|search|find)" },
  -- Deprecated: RE2 matched against the name of a tool matcher names: the tools that delete. The others write.
  deleteTools = { "regex", "(?i)(delete|remove|unlink)" },
  -- Deprecated (declare the tool with kind shell instead): RE2 matched against the names of tools the tool table does not know, whose input is a shell command.
  shellMatcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the command of the tools shellMatcher names.
  commandFields = { "[]string", { "command", "cmd", "commands", "script" } },
  -- Deprecated (declare the tool with kind patch instead): RE2 matched against the names of tools the tool table does not know, whose input is a patch.
  patchMatcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the patch text of the tools patchMatcher names.
  patchFields = { "[]string", { "patch", "input", "diff", "content" } },
  -- What to do when a tool reads a credentials file.
  read = { "deny|ask|off", "deny" },
  -- What to do when a tool writes a credentials file or inside .git.
  write = { "deny|ask|off", "deny" },
  -- What to do when a tool deletes a credentials file or inside .git.
  delete = { "deny|ask|off", "deny" },
  -- What to do when a tool writes or deletes outside the root.
  outside = { "deny|ask|off", "deny" },
  -- What to do when a tool writes or deletes an agent's or hook's configuration (.claude/settings.json, .mcp.json, agents.json, ...): the agent's own guard rails.
  agentConfig = { "deny|ask|off", "deny" },
  -- Extra globs of agent or hook configuration files (your policy files), matched like extraSecrets.
  extraConfig = { "[]string", {} },
  -- The sandbox root; empty means the input's cwd, or the host's project root (Files.Root, --root) when the input has none.
  root = { "string", "" },
  -- Globs (** crosses directories) outside the root that may be written.
  writableOutside = { "[]string", { "/tmp/**", "/var/tmp/**", "/private/tmp/**", "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "~/.cache/**", "~/Library/Caches/**", "~/AppData/Local/Temp/**" } },
  -- Extra globs of credential files (matched case-insensitively against the absolute path, or the base name when the glob has no slash).
  extraSecrets = { "[]string", {} },
  -- Globs that are never protected (they win over every rule).
  allow = { "[]string", {} },
}

local P = require("monad.params").check(PACK, SPEC, params)

-- The shared command-line helpers (stdlib/lib/commands.lua): the simple
-- commands of a line and the words of a string (the host shell module), the
-- command strings of a tool input, and a command's words seen through
-- wrappers and flags.
local C = require("monad.commands")
local commands, split = C.commands, C.split
local command_texts, basename, unwrap, parse_flags = C.command_texts, C.basename, C.unwrap, C.parse_flags

-- The credential files and directories (stdlib/lib/paths.lua), shared with
-- deny-destructive.
local PATHS = require("monad.paths")

-- The values of variables as the shell puts them in (stdlib/lib/expand.lua),
-- shared with deny-destructive.
local E = require("monad.expand")

---------------------------------------------------------------------------
-- Paths
---------------------------------------------------------------------------

-- glob_rx turns a glob into an anchored RE2 expression: ** crosses
-- directories, * and ? stay within one segment.
local function glob_rx(g)
  local out = {}
  local i, n = 1, string.len(g)
  while i <= n do
    local c = string.sub(g, i, i)
    if c == "*" and string.sub(g, i + 1, i + 1) == "*" then
      if string.sub(g, i + 2, i + 2) == "/" then
        out[#out + 1] = "(.*/)?"
        i = i + 3
      else
        out[#out + 1] = ".*"
        i = i + 2
      end
    elseif c == "*" then
      out[#out + 1] = "[^/]*"
      i = i + 1
    elseif c == "?" then
      out[#out + 1] = "[^/]"
      i = i + 1
    else
      if string.find("\\.+()|[]{}^$", c, 1, true) then
        out[#out + 1] = "\\" .. c
      else
        out[#out + 1] = c
      end
      i = i + 1
    end
  end
  return "(?i)^" .. table.concat(out) .. "$"
end

-- compile_globs compiles globs: one without a slash matches the base name,
-- one that starts with / or ~/ the absolute path, any other one a path
-- under any directory (secrets/** is **/secrets/**).
local function compile_globs(list, home)
  local out = {}
  for _, g in ipairs(list) do
    local base = string.find(g, "/", 1, true) == nil
    if not base then
      if string.sub(g, 1, 2) == "~/" and home then
        g = home .. string.sub(g, 2)
      elseif string.sub(g, 1, 1) ~= "/" and string.sub(g, 1, 1) ~= "*" and string.sub(g, 1, 1) ~= "~" then
        g = "**/" .. g
      end
    end
    out[#out + 1] = { rx = glob_rx(g), base = base }
  end
  return out
end

-- HOME is the home directory (nil when the runtime has none: ~ paths then
-- stay symbolic).
local path = require("path")
local HOME = path.expand("~")
if string.sub(HOME, 1, 1) ~= "/" then
  HOME = nil
end

local EXTRA = compile_globs(P.extraSecrets, HOME)
local EXTRA_CONFIG = compile_globs(P.extraConfig, HOME)
-- GUARD_RAILS are the files and folders monad-hooks' own guards are
-- configured by (its configuration files, the scripts of its command hooks,
-- its Lua scripts, and its folders of scripts, which end in "/"),
-- lowercased: the host's list, read when a path is first checked (a local
-- function that reads it once). The top level does not read path.config():
-- the pack's hooks then do not depend on it, and an engine plans them from
-- the pack's Record without running the pack (BenchmarkCLIRun).
local GUARD_RAILS = nil
local function guard_rails()
  if GUARD_RAILS == nil then
    GUARD_RAILS = {}
    for i, p in ipairs(path.config()) do
      GUARD_RAILS[i] = string.lower(p)
    end
  end
  return GUARD_RAILS
end
local ALLOW = compile_globs(P.allow, HOME)
-- OUTSIDE_OK: writableOutside compiled when a path outside the root is
-- first checked (a local function that builds once): compiling the globs
-- was a twentieth of the packs' loading in monad-hooks run
-- (BenchmarkCLIRun).
local OUTSIDE_OK = nil
local function outside_ok()
  if OUTSIDE_OK == nil then
    OUTSIDE_OK = compile_globs(P.writableOutside, HOME)
  end
  return OUTSIDE_OK
end

local function glob_hit(list, abs, base)
  for _, g in ipairs(list) do
    if re.match(g.base and base or abs, g.rx) then
      return true
    end
  end
  return false
end

-- clean resolves . and .. segments of a slash path (absolute or not).
local clean = path.clean

-- resolve turns a path as written into an absolute path when it can (home
-- and cwd known), else into a cleaned relative or ~-rooted one.
local function resolve(p, cwd, home)
  if type(p) ~= "string" or p == "" then
    return nil
  end
  p = re.gsub(p, "^file://(localhost)?", "")
  p = re.gsub(p, [[\\]], "/")
  p = re.gsub(p, [[^(\$\{HOME\}|\$HOME|\$\{HOME:-[^}]*\}|%USERPROFILE%|\$USERPROFILE)]], "~")
  if re.match(p, "^~[A-Za-z_][A-Za-z0-9_.-]*(/|$)") then
    p = "/home/" .. string.sub(p, 2)
  end
  if p == "~" or string.sub(p, 1, 2) == "~/" then
    if home ~= nil and home ~= "" then
      p = home .. string.sub(p, 2)
    end
  end
  if string.sub(p, 1, 1) ~= "/" and string.sub(p, 1, 1) ~= "~" and cwd ~= nil and cwd ~= "" then
    p = cwd .. "/" .. p
  end
  p = clean(p)
  -- /proc/self/root, /proc/<pid>/root and macOS /private/{etc,var,tmp}
  p = re.gsub(p, [[^/proc/(self|thread-self|[0-9]+)/root(/|$)]], "/")
  if cwd ~= nil and cwd ~= "" then
    p = re.gsub(p, [[^/proc/(self|thread-self|[0-9]+)/cwd(/|$)]], cwd .. "/")
  end
  p = re.gsub(p, [[^/private/(etc|var|tmp)(/|$)]], "/$1$2")
  return clean(p)
end

-- secret_kind says what credentials the (lowercased) path holds, or nil:
-- the shared list (monad.paths) and extraSecrets.
local function secret_kind(p)
  local kind = PATHS.secret_kind(p)
  if kind then
    return kind
  end
  if #EXTRA > 0 and glob_hit(EXTRA, p, string.match(p, "([^/]*)$") or p) then
    return "a protected file (extraSecrets)"
  end
  return nil
end

local function in_git(p)
  return re.find(p, [[(^|/)\.git(/|$)]]) ~= nil
end

local function under(p, root)
  if root == "/" then
    return true
  end
  return p == root or string.sub(p, 1, string.len(root) + 1) == root .. "/"
end

local VERB = { read = "reading", write = "writing", delete = "deleting" }

-- check returns a decision and a reason for an operation (read, write,
-- delete) on path raw, or nil.
local function check(raw, op, env)
  local abs = resolve(raw, env.cwd, env.home)
  if abs == nil then
    return nil
  end
  local lower = string.lower(abs)
  local base = string.match(lower, "([^/]*)$") or lower
  if op == "restrict" then
    -- chmod 600 of a key only takes access away: not a write of it
    if secret_kind(lower) or PATHS.secret_dir(lower) or re.find(lower, [[(^|/)\.ssh(/|$)]]) then
      return nil
    end
    op = "write"
  end
  if #ALLOW > 0 and glob_hit(ALLOW, lower, base) then
    return nil
  end
  local shown = raw
  if string.len(shown) > 120 then
    shown = "…" .. string.sub(shown, -100)
  end
  local policy = P[op]
  if policy ~= "off" then
    local kind = secret_kind(lower) or (op == "read" and PATHS.secret_dir(lower))
    if kind then
      return policy, PACK .. ": " .. VERB[op] .. " " .. shown .. " is blocked: it is " .. kind .. "; ask the user for what you need instead"
    end
    -- a stale lock (index.lock, refs/heads/x.lock) is git's own to remove
    if op ~= "read" and in_git(lower) and not (op == "delete" and re.match(base, [[^.*\.lock$]])) then
      return policy, PACK .. ": " .. VERB[op] .. " " .. shown .. " is blocked: it is inside .git (repository internals); use git commands instead"
    end
  end
  if op ~= "read" and P.agentConfig ~= "off" then
    local conf = PATHS.agent_config(lower)
    if conf == nil and #EXTRA_CONFIG > 0 and glob_hit(EXTRA_CONFIG, lower, base) then
      conf = "a protected configuration file (extraConfig)"
    end
    if conf == nil then
      for _, g in ipairs(guard_rails()) do
        -- a folder (ending in /) is its *.lua files, and itself
        local dir = string.match(g, "^(.*)/$")
        if lower == g or dir and (lower == dir or string.match(lower, "^(.*)/[^/]*%.lua$") == dir) then
          conf = "part of monad-hooks' configuration (" .. g .. ")"
          break
        end
      end
    end
    if conf then
      return P.agentConfig, PACK .. ": " .. VERB[op] .. " " .. shown .. " is blocked: it is " .. conf .. ", the agent's own guard rails; ask the user to change it"
    end
  end
  if op ~= "read" and P.outside ~= "off" and env.root ~= nil and env.root ~= "" then
    local root = string.lower(env.root)
    local target = lower
    if string.sub(target, 1, 1) == "~" then
      target = "/~" .. string.sub(target, 2)
    end
    if string.sub(target, 1, 1) == "/" and not under(target, root) and not glob_hit(outside_ok(), lower, base) then
      return P.outside, PACK .. ": " .. VERB[op] .. " " .. shown .. " is blocked: it is outside the project root " .. env.root
    end
  end
  return nil
end

---------------------------------------------------------------------------
-- Shell commands: which words are paths, and what is done to them.
---------------------------------------------------------------------------

local NOT_PATHS = {
  echo = true, printf = true, man = true, which = true, type = true, whereis = true,
  export = true, alias = true, sleep = true, ["true"] = true, ["false"] = true,
  test = true, ["["] = true, ["[["] = true, source = true, ["."] = true, cd = true,
  pushd = true, popd = true, mkdir = false, set = true, unset = true, read = true,
  kill = true, exit = true, ["return"] = true, date = true, seq = true, expr = true,
}
local DELETES = { rm = true, unlink = true, shred = true, srm = true, rmdir = true, trash = true }
local WRITES_ALL = { tee = true, sponge = true, touch = true, truncate = true, mkdir = true, chmod = "first", chown = "first", chgrp = "first" }

-- CODE_RUNNERS are the interpreters whose -c/-e program is read for the
-- paths it names; CODE_WRITES finds a program that writes files.
local CODE_RUNNERS = { python = "c", python3 = "c", python2 = "c", node = "e", nodejs = "e", bun = "e", deno = "", ruby = "e", perl = "e", php = "r", lua = "e" }
local CODE_WRITES = [[(?i)(open\([^)]*['"][wa]\+?b?['"]|\.write|dump\(|writefile|write_text|write_bytes|file_put_contents|fputs|file\.write|rename|replace\(|unlink|remove|truncate)]]
local COPIES = { cp = true, mv = true, install = true, ln = true, rsync = true, scp = true }
local GREPS = { grep = true, egrep = true, fgrep = true, rg = true, ag = true, ack = true, zgrep = true }

-- pathlike says whether a word may be a path: a path may hold blanks
-- (Application Support/...) when it has a slash, never a newline.
local function pathlike(w)
  if w == nil or w == "" or string.find(w, "\n", 1, true) or (string.find(w, "[%s]") and not string.find(w, "/", 1, true)) then
    return false
  end
  if string.find(w, "://", 1, true) and not string.find(w, "^file://") then
    return false
  end
  return true
end

-- operands returns the words of a command that may be paths, with the value
-- of --opt=value and key=@file options.
local function operand_words(w, from)
  local out = {}
  local ended = false
  for k = from, #w do
    local a = w[k]
    if not ended and a == "--" then
      ended = true
    elseif not ended and string.sub(a, 1, 1) == "-" then
      local v = string.match(a, "^%-%-[%w-]+=(.+)$")
      if v and not string.match(a, "^%-%-env%-file=") then
        out[#out + 1] = v
      end
    else
      out[#out + 1] = a
    end
  end
  return out
end

-- restrictive says whether a chmod mode only takes permissions away from
-- the group and others (600, 0400, go-rwx, u=rw,go=).
local function restrictive(mode)
  if type(mode) ~= "string" then
    return false
  end
  if re.match(mode, "^0?[0-7]00$") then
    return true
  end
  if not re.match(mode, "^[ugoa]*[-+=][rwxXst]*(,[ugoa]*[-+=][rwxXst]*)*$") then
    return false
  end
  for clause in string.gmatch(mode, "[^,]+") do
    local who, opc, perms = string.match(clause, "^([ugoa]*)([-+=])(.*)$")
    if opc == "+" then
      return false
    end
    if opc == "=" and perms ~= "" and who ~= "u" then
      return false
    end
  end
  return true
end

-- patch_paths (below) reads the files a patch touches.
local patch_paths

-- SSH_CLIENTS log in with the private key of -i KEY (or -o
-- IdentityFile=KEY).
local SSH_CLIENTS = { ssh = true, scp = true, sftp = true, autossh = true, sshfs = true }

-- drop_identity returns w without the key file option -LETTER KEY (also
-- -LETTERKEY and -o IdentityFile=KEY).
local function drop_identity(w, letter)
  local out, k = {}, 1
  while k <= #w do
    local a = w[k]
    if a == "-" .. letter or (k > 1 and re.match(a, "^-[A-Za-z]*" .. letter .. "$")) or (a == "-o" and re.match(w[k + 1] or "", "(?i)^identityfile[= ]")) then
      k = k + 2
    elseif (k > 1 and string.sub(a, 1, 2) == "-" .. letter and string.len(a) > 2) or re.match(a, "(?i)^-oidentityfile=") then
      k = k + 1
    else
      out[#out + 1] = a
      k = k + 1
    end
  end
  return out
end

local function shell_paths(words, redirects, acts)
  local w = unwrap(words)
  local name = basename(w[1])
  local add = function(op, p)
    if type(p) == "string" then
      -- a substitution in a path stands for one segment: /proc/$(pgrep x)/environ
      if string.find(p, "$(", 1, true) or string.find(p, "`", 1, true) then
        p = re.gsub(p, [[\$\([^()]*\)|`[^`]*`]], "_")
      end
      p = re.gsub(p, "^[A-Za-z0-9_.-]*=@", "")
      p = re.gsub(p, "^@", "")
      p = re.gsub(p, "^[A-Za-z_][A-Za-z0-9_]*=", "")
      if pathlike(p) then
        acts[#acts + 1] = { op, p }
      end
    end
  end
  if type(redirects) == "table" then
    for _, r in ipairs(redirects) do
      local op = r.op or ""
      if type(r.target) == "string" and not string.find(r.target, "^&") then
        if string.find(op, ">", 1, true) then
          add("write", r.target)
        elseif string.find(op, "<", 1, true) and op ~= "<<" and op ~= "<<<" and op ~= "<<-" then
          add("read", r.target)
        end
      end
    end
  end
  if name == "" or NOT_PATHS[name] then
    return
  end
  -- Codex sends its patches through the shell: apply_patch 'PATCH' or
  -- apply_patch <<'EOF' ... EOF
  if name == "apply_patch" or name == "applypatch" then
    for k = 2, #w do
      patch_paths(w[k], acts)
    end
    if type(redirects) == "table" then
      for _, r in ipairs(redirects) do
        if type(r.body) == "string" then
          patch_paths(r.body, acts)
        elseif r.op == "<<<" and type(r.target) == "string" then
          patch_paths(r.target, acts)
        end
      end
    end
    return
  end
  -- a private key given to ssh to log in with, loaded into the agent, or
  -- fingerprinted is used, not shown (like source .env)
  if name == "ssh-add" then
    return
  end
  if SSH_CLIENTS[name] or name == "ssh-keygen" then
    local shows = false
    if name == "ssh-keygen" then
      shows = true
      for k = 2, #w do
        if re.match(w[k], "^-[A-Za-z]*[ly][A-Za-z]*$") then
          shows = false
        end
      end
    end
    if not shows then
      w = drop_identity(w, name == "ssh-keygen" and "f" or "i")
    end
  end
  if name == "rsync" then
    -- -e CMD is the remote shell rsync runs (ssh -i KEY), not a path
    local out, k = {}, 1
    while k <= #w do
      if w[k] == "-e" or w[k] == "--rsh" then
        k = k + 2
      else
        if not string.find(w[k], "^%-%-rsh=") then
          out[#out + 1] = w[k]
        end
        k = k + 1
      end
    end
    w = out
  end
  -- values of -F/--form/-d/--data @file (curl), -T file (curl upload)
  for k = 2, #w do
    if (w[k] == "-F" or w[k] == "--form" or w[k] == "-d" or w[k] == "--data" or w[k] == "--data-binary" or w[k] == "-T" or w[k] == "--upload-file") and w[k + 1] then
      local v = re.gsub(w[k + 1], "^[^=@]*=", "")
      add("read", re.gsub(v, ";.*$", ""))
    end
  end
  if name == "git" then
    local sub = w[2]
    if sub == "add" or sub == "show" or sub == "diff" or sub == "blame" or sub == "log" then
      for k = 3, #w do
        if w[k] == "-m" or w[k] == "--message" then
          break
        end
        if string.sub(w[k], 1, 1) ~= "-" then
          add("read", re.gsub(w[k], "^[^:]*:", ""))
        end
      end
    end
    return
  end
  if name == "find" or name == "fd" or name == "ls" or name == "tree" or name == "du" or name == "stat" or name == "file" or name == "wc" and false then
    return
  end
  if name == "dd" then
    for k = 2, #w do
      local of = string.match(w[k], "^of=(.+)$")
      local inf = string.match(w[k], "^if=(.+)$")
      add("write", of)
      add("read", inf)
    end
    return
  end
  if name == "docker" or name == "podman" or name == "env-cmd" or name == "dotenv" then
    return
  end
  local runner = CODE_RUNNERS[name]
  if runner == nil and string.find(name, "[0-9]") then
    runner = CODE_RUNNERS[(re.gsub(name, "[0-9.]+$", ""))]
  end
  if name == "perl" then
    for k = 2, #w do
      if re.match(w[k], "^-[A-Za-z]*i") then
        runner = nil -- perl -pi -e: edits its operands in place (below)
      end
    end
  end
  if runner then
    -- python -c '...': the paths its string literals name are read, and
    -- written when the program writes (agent configuration only, since a
    -- program's other strings are seldom what it writes)
    local code = nil
    for k = 2, #w do
      if w[k] == "eval" or w[k] == "--eval" or (runner ~= "" and re.match(w[k], "^-[A-Za-z]*[" .. runner .. "]$")) then
        code = w[k + 1]
        break
      end
    end
    if code then
      local writes = re.find(code, CODE_WRITES) ~= nil
      for _, q in ipairs(re.findall(code, [['[^'\n]*'|"[^"\n]*"]])) do
        local str = string.sub(q, 2, -2)
        if string.find(str, "/", 1, true) or string.find(str, ".", 1, true) then
          add("read", str)
          if writes and PATHS.agent_config(string.lower(str)) then
            add("write", str)
          end
        end
      end
      return
    end
  end
  local ops = operand_words(w, 2)
  if DELETES[name] then
    for _, p in ipairs(ops) do
      add("delete", p)
    end
    return
  end
  if name == "chmod" and restrictive(ops[1]) then
    for k = 2, #ops do
      add("restrict", ops[k])
    end
    return
  end
  local wa = WRITES_ALL[name]
  if wa then
    for k, p in ipairs(ops) do
      if not (wa == "first" and k == 1) then
        add("write", p)
      end
    end
    return
  end
  if name == "sed" or name == "perl" then
    local inplace = false
    for k = 2, #w do
      if string.sub(w[k], 1, 2) == "-i" or w[k] == "--in-place" or string.match(w[k], "^%-[a-zA-Z]*i") then
        inplace = true
      end
    end
    for k, p in ipairs(ops) do
      if k > 1 then
        add(inplace and "write" or "read", p)
      end
    end
    return
  end
  if COPIES[name] then
    if #ops >= 2 then
      local templates = name ~= "mv" and name ~= "ln"
      for k = 1, #ops - 1 do
        add(name == "mv" and "delete" or "read", ops[k])
        if not PATHS.env_template(string.lower(string.match(ops[k], "([^/]*)$") or "")) then
          templates = false
        end
      end
      -- cp .env.example .env writes a template, not secrets
      if not (templates and re.match(string.lower(string.match(ops[#ops], "([^/]*)$") or ""), [[^\.env(\.[a-z0-9_-]+)?$]])) then
        add("write", ops[#ops])
      end
    end
    return
  end
  if GREPS[name] then
    local has_e = false
    for k = 2, #w do
      if w[k] == "-e" or w[k] == "-f" or string.sub(w[k], 1, 2) == "-e" and string.len(w[k]) > 2 or string.sub(w[k], 1, 10) == "--regexp=" then
        has_e = true
      end
    end
    for k, p in ipairs(ops) do
      if has_e or k > 1 then
        add("read", p)
      end
    end
    return
  end
  for _, p in ipairs(ops) do
    add("read", p)
  end
end

-- ROOT is the host's project root (the sandbox root): the cwd and root of
-- a call whose input has no cwd.
local ROOT = path.root()
if ROOT == "" then
  ROOT = nil
end

-- DECLARERS set the variables their NAME=VALUE words name.
local DECLARERS = { export = true, declare = true, typeset = true, ["local"] = true, readonly = true }

-- expanded returns the words and redirections of a command with the
-- values of the variables set earlier on the line put in (monad.expand:
-- D=~/.ssh; cat "$D/id_rsa" reads ~/.ssh/id_rsa, HOME=$(mktemp -d); rm
-- -rf "$HOME" deletes a new folder, not the home directory), within
-- limit; a command's own assignments (HOME=/x cmd "$HOME") are not yet
-- set when its words are expanded, as in the shell.
local function expanded(c, vars, limit, st)
  local words = c.words or {}
  if vars == nil then
    return words, c.redirects
  end
  local any = false
  for k = 1, #words do
    any = any or string.find(words[k], "[$`]") ~= nil
  end
  for _, r in ipairs(type(c.redirects) == "table" and c.redirects or {}) do
    any = any or (type(r.target) == "string" and string.find(r.target, "[$`]") ~= nil)
  end
  if not any then
    return words, c.redirects
  end
  local w = {}
  for k = 1, #words do
    w[k] = E.subst(words[k], vars, limit, st)
  end
  local rs = c.redirects
  if type(rs) == "table" then
    local out = {}
    for k, r in ipairs(rs) do
      out[k] = { op = r.op, fd = r.fd, body = r.body, target = type(r.target) == "string" and E.subst(r.target, vars, limit, st) or r.target }
    end
    rs = out
  end
  return w, rs
end

-- shell_acts adds the acts of every command of line. A cd (or pushd)
-- moves the folder the relative paths of the commands after it are in:
-- cd .. && rm -rf other deletes ../other. Variables set on the line (NAME=VALUE,
-- export, declare, local; a loop variable its first value) are put in
-- the words of the commands after, expanded when they are set, as the
-- shell does (monad.expand, bounded by four times the line's length and
-- 4 KiB a value).
local function shell_acts(line, acts, depth)
  local dir = nil
  -- vars and st: made at the first assignment
  local vars, st = nil, nil
  local limit = 4 * string.len(line) + 4096
  for _, c in ipairs(commands(line)) do
    local w, redirects = expanded(c, vars, limit, st)
    if #w == 0 and type(c.assigns) == "table" then
      for n, v in pairs(c.assigns) do
        if type(v) == "string" then
          vars, st = vars or {}, st or { root = ROOT }
          E.assign(vars, n, v, limit, st)
        end
      end
    elseif w[1] and DECLARERS[w[1]] then
      for k = 2, #w do
        local n, v = string.match(w[k], "^([%a_][%w_]*)=(.*)$")
        if n then
          vars, st = vars or {}, st or { root = ROOT }
          vars[n] = v
        end
      end
    end
    local name = w[1] and basename(w[1])
    if name == "cd" or name == "pushd" then
      local t = w[2]
      if t == "-P" or t == "-L" or t == "--" then
        t = w[3]
      end
      if t == nil or t == "" then
        dir = "~"
      elseif t == "-" then
        dir = nil
      elseif string.find(t, "^[/~$]") or string.find(t, "^file:") or dir == nil then
        dir = t
      else
        dir = dir .. "/" .. t
      end
    else
      local n = #acts
      shell_paths(w, redirects, acts)
      if dir then
        for k = n + 1, #acts do
          local p = acts[k][2]
          if not string.find(p, "^[/~$]") and not string.find(p, "^file:") then
            acts[k][2] = dir .. "/" .. p
          end
        end
      end
    end
  end
  local _ = depth
end

-- A cheap prefilter: a command line that mentions no credential-like name
-- (TRIGGER_WORDS, in the lowercased line) and no absolute, home, parent or
-- file: path (TRIGGER_PATH) cannot touch a protected path, and skips the
-- parse.
local TRIGGER_WORDS = {
  "env", "ssh", "id_", "aws", "gcloud", "kube", "docker", "npmrc", "pypirc", "netrc",
  "credential", ".pem", ".key", ".p12", ".pfx", ".jks", "keystore", ".ppk", ".p8",
  "tfstate", "shadow", "sudoers", "gnupg", ".git", "vault", "pgpass", "my.cnf", "azure",
  "gh/", "config/hub", "client_secret", "service", "password-store", ".boto", "s3cfg",
  "dockercfg", "htpasswd", ".asc", "/proc/",
  -- agent and hook configuration, more credentials
  "claude", "cursor", "codex", "gemini", "mcp", "vscode", "agents.", "opencode",
  "adminsdk", "keychain", "rclone", "dev.vars", ".kdb", ".1pux", "opvault",
  "accesskeys", "sops", "apply_patch", "applypatch",
  -- Windows: profiles, application data, PowerShell's history
  "profile", "appdata", "psreadline",
}
-- TRIGGER_PATH is (^|[\s'"=@:<>(])(/|~|\$\{?HOME|\.\.|file:)|\\|\$\(|` as two
-- keyword sets (one Go pass each; the RE2 alternation cost more than the
-- rest of the prefilter, BenchmarkDefaultSetBeforeTool): the path starts
-- where a token of what the class excludes begins (TRIGGER_PATH_AT), the
-- rest anywhere (with the words in TRIGGER_SET: lowercasing changes none
-- of \\, $( and `).
local scan = require("scan")
local TRIGGER_PATH_AT = scan.keywords({ "/", "~", "$HOME", "${HOME", "..", "file:" }, { token = [=[[^\s'"=@:<>(]]=] })

-- TRIGGER_SET finds the words all at once (a keyword automaton in Go;
-- BenchmarkDefaultSetBeforeTool).
-- The names of monad-hooks' own configuration (GUARD_RAILS) trigger too:
-- a file's base name, a folder's name and ".lua" (its scripts), the set
-- scan.config_names() (made in Go from the host's list, so that a Record
-- keeps it as such).
local TRIGGER_SET = scan.keywords({ "\\", "$(", "`", unpack(TRIGGER_WORDS) })

-- SHELL_TRIGGER is also the shell hook's prefilter (hook{ prefilter }, a Go
-- search that skips the call without a VM, BenchmarkDefaultSetBeforeTool).
local SHELL_TRIGGER = scan.any({ TRIGGER_PATH_AT, scan.any({ TRIGGER_SET, scan.config_names() }, { lower = true }) })

local function shell_trigger(line)
  return SHELL_TRIGGER:test(line)
end

local RANK = { ask = 1, deny = 2 }

-- path_env is what check needs of a call: its cwd, the home directory and
-- the root.
local function path_env(input)
  local env = { cwd = input.cwd or ROOT, home = HOME, root = P.root }
  if env.root == "" then
    env.root = env.cwd
  end
  return env
end

-- KIND_OP is the operation of a file tool of each kind on its paths.
local KIND_OP = { read = "read", delete = "delete" }

-- check_paths returns the first decision of check on paths, each with op.
local function check_paths(paths, op, input)
  local env = path_env(input)
  for _, p in ipairs(paths) do
    local d, reason = check(p, op, env)
    if d then
      return { decision = d, reason = reason }
    end
  end
  return nil
end

C.on_kind({ event = "BeforeTool", kind = { "read", "write", "edit", "delete", "fetch" }, part = "paths", matcher = P.matcher,
  texts = function(input) return command_texts(input.toolInput, P.pathFields) end },
  function(paths, input)
    local op = "write"
    if input.tool ~= nil then
      op = KIND_OP[input.tool.kind] or "write"
    else
      local name = input.toolName or ""
      if re.find(name, P.readTools) then
        op = "read"
      elseif re.find(name, P.deleteTools) then
        op = "delete"
      end
    end
    return check_paths(paths, op, input)
  end)

-- patch_paths returns the files a patch touches, with what it does to
-- them: the "*** Add/Update/Delete File:" headers of apply_patch and the
-- ---/+++ headers of a unified diff.
patch_paths = function(text, out)
  for _, line in ipairs(re.split(text, "\r?\n")) do
    local a, _, verb, p = re.find(line, [[^\*\*\* (Add|Update|Delete) File: (.+?)\s*$]])
    if a then
      out[#out + 1] = { verb == "Delete" and "delete" or "write", p }
    else
      local b, _, p2 = re.find(line, [[^(?:\+\+\+|---) (?:[ab]/)?(.+?)(?:\t.*)?\s*$]])
      if b and p2 ~= "/dev/null" then
        out[#out + 1] = { "write", p2 }
      end
      local c, _, p3 = re.find(line, [[^\*\*\* Move to: (.+?)\s*$]])
      if c then
        out[#out + 1] = { "write", p3 }
      end
    end
  end
end

-- strongest returns the strongest decision of check on acts ({op, path}
-- pairs), with its reason, as a hook output; nil when none decides.
local function strongest(acts, env)
  local best, best_reason = nil, nil
  for _, a in ipairs(acts) do
    local d, reason = check(a[2], a[1], env)
    if d and (best == nil or RANK[d] > RANK[best]) then
      best, best_reason = d, reason
    end
  end
  if best then
    return { decision = best, reason = best_reason }
  end
  return nil
end

C.on_kind({ event = "BeforeTool", kind = "patch", matcher = P.patchMatcher,
  texts = function(input) return command_texts(input.toolInput, P.patchFields) end },
  function(texts, input)
    local acts = {}
    for _, text in ipairs(texts) do
      patch_paths(text, acts)
    end
    return strongest(acts, path_env(input))
  end)

-- PowerShell and cmd.exe lines (monad.pwsh): the files their cmdlets,
-- redirections and .NET calls read, write and delete, Windows paths in
-- the pack's notation (C:\Users\me\.ssh\id_rsa, $env:USERPROFILE,
-- %APPDATA%, $PROFILE), and the programs' paths as in a POSIX line.
local PW = require("monad.pwsh")
local function pwsh_acts(line, dialect, acts)
  local cmds = PW.commands(line, dialect)
  PW.file_ops(cmds, line, acts, function(words, redirects)
    shell_paths(words, redirects, acts)
  end)
end

-- A line in which shell_trigger finds nothing adds no act (unless extra
-- paths are set), and no act is no decision.
C.on_kind({ event = "BeforeTool", kind = "shell", matcher = P.shellMatcher,
  prefilter = #EXTRA == 0 and #EXTRA_CONFIG == 0 and SHELL_TRIGGER or nil,
  texts = function(input) return command_texts(input.toolInput, P.commandFields) end },
  function(lines, input)
    local acts = {}
    local env = path_env(input)
    for _, line in ipairs(lines) do
      if #EXTRA > 0 or #EXTRA_CONFIG > 0 or shell_trigger(line) then
        local dialect = PW.dialect(input.tool, line)
        if not (input.tool and input.tool.shell) then
          shell_acts(line, acts, 0)
        end
        if dialect then
          pwsh_acts(line, dialect, acts)
          -- a Windows working directory: the paths are under its POSIX form
          if type(input.cwd) == "string" and re.match(input.cwd, [=[^[A-Za-z]:[\\/]]=]) then
            env.cwd = PW.posix(input.cwd)
            env.root = P.root ~= "" and P.root or env.cwd
          end
        end
      end
    end
    return strongest(acts, env)
  end)
