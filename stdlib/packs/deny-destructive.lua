--- pack: deny-destructive
--- summary: Deny shell commands (and database tools' statements) that destroy files, disks, repositories, databases, clusters or the host.
--- events: BeforeTool
--- kinds: shell, query
---
--- Checks the command of every call of a shell tool (every tool of kind
--- `shell` in the engine's tool table: `Bash`, `run_shell_command`,
--- `shell`, `exec_command`, `bash`, `run_terminal_cmd`, `shell_exec`, ...,
--- and the host's own declared tools; a command given as an argv is one
--- command line) and denies it when it would:
---
--- - recursively or forcibly delete `/`, `~`/`$HOME`, a home directory, a
---   top-level or system directory (`/etc`, `/usr`, `/var/lib`, ...), a
---   database's data (`/var/lib/postgresql/...`, `/data/db`, ...), the
---   working directory itself (`.`, `*`, `./* .[!.]*`, `"$PWD"`, its own
---   path from the input's `cwd`; not when that is a subdirectory of the
---   host's sandbox root, the project), a parent of it (`..`), or a `.git`
---   directory; also through `find -delete` and `find -exec rm` (only
---   name tests narrow what find deletes: `find . -mtime +1 -delete` is
---   the whole project), `fd -X rm`, `xargs rm` fed by `find`, `fd`, `ls`
---   or `echo`, `rsync --delete` into such a directory, `mv` and `shred`;
--- - write to a block device (`dd of=/dev/sda`, `> /dev/nvme0n1`, `tee`,
---   `cp`), make or wipe file systems and partition tables (`mkfs*`,
---   `wipefs`, `sgdisk --zap-all`, `fdisk`, `mdadm --zero-superblock`,
---   `zpool destroy`, ...);
--- - fork-bomb the host (a function that runs itself in a pipeline or in
---   the background, an endless loop such as `while true` that starts
---   commands with `&`), shut it down (`shutdown`, `reboot`, `halt`,
---   `poweroff`, `init 0`, `systemctl poweroff`) or kill every process
---   (`kill -9 -1`);
--- - wipe or stop the shell history (`history -c`, `unset HISTFILE`,
---   `HISTFILE=/dev/null`, `HISTSIZE=0`, `set +o history`, deleting,
---   emptying or replacing `~/.bash_history`, `~/.zsh_history` and other
---   history files), or replace or delete the crontab (`crontab FILE`,
---   `... | crontab -`, `crontab -r`);
--- - change the owner or mode of `/`, `~` or a system directory
---   recursively;
--- - run a downloaded or decoded script (`curl ... | sh`, `bash <(curl ...)`,
---   `sh -c "$(wget -O- ...)"`, `base64 -d | bash`), text decoded by
---   `base64 -d`, `xxd -r`, `openssl -d`, `rev`, `tr` or a decompressor
---   and run as a command, by `eval`, a shell or an interpreter
---   (`eval "$(echo ... | base64 -d)"`, `$(... | rev) -rf /`), or escapes
---   that `printf`/`echo -e` turn into a command for a shell;
--- - lose git work or history: a force push (`--force`, `-f`, `+ref`,
---   `--mirror`, `--delete`) to a protected branch, a force push without an
---   explicit branch, `reset --hard`, `clean -f`, `checkout -- .`,
---   `restore .`, `stash clear`, `branch -D` of a protected branch,
---   `filter-branch`, `filter-repo`, `reflog expire`;
--- - drop databases and cloud resources through their command-line
---   clients (`dropdb`, `psql -c 'DROP DATABASE ...'` or `ALTER TABLE ...
---   DROP COLUMN`, `mysql -e`, `sqlcmd -Q`, `snowsql -q`, `bq query`,
---   `redis-cli flushall`, `mongosh --eval 'db.dropDatabase()'`,
---   `kubectl delete ns`, `kubectl delete --all`, `terraform destroy`,
---   `aws s3 rb`, `aws ... delete-*`/`terminate-*`, `gcloud ... delete`,
---   `az ... delete`, `docker compose down -v`, `rails db:drop`, ...), but
---   not a test database (`RAILS_ENV=test`, also exported earlier on the
---   line by `export`, `declare -x` or `set -a`, and not taken back by
---   `unset` or `export -n` nor set in a subshell, a pipeline or a
---   function body, `--env=testing`, `app_test`,
---   `test_db`, the volumes of `docker compose -f docker-compose.test.yml`,
---   when nothing names production or staging).
---
--- The same SQL check (DROP DATABASE, SCHEMA or TABLE, TRUNCATE, ALTER
--- TABLE ... DROP COLUMN, a DELETE or an UPDATE with no WHERE) applies to
--- the statements of every call of a database tool (kind `query`: an MCP
--- server's `query {sql}`, `execute_sql`, `run_sql`, `write_query`, ...;
--- see tools/mcp.md). `DROP TABLE IF EXISTS tmp_x` is denied there too:
--- whether the table is disposable is not in the statement, and a
--- migration belongs in the project's migration tool, run by the user.
--- A DELETE or UPDATE with a WHERE, CREATE TABLE, a SELECT that only
--- names DROP in a string or a comment, and the sqlite server's
--- `read_query` (which runs only SELECT) pass.
---
--- It asks (`exfiltration`: `deny`, `ask` or `off`) before a command sends
--- the environment or credentials over the network: an environment dump
--- (`env`, `printenv`, `export -p`, `set`, `/proc/*/environ`), a secret
--- variable, a token printer (`gh auth token`, `gcloud auth
--- print-access-token`, `security find-generic-password`, ...) or a
--- credential file or directory (those protect-paths knows: `~/.ssh`,
--- `~/.aws/credentials`, `.env`, ...) piped, redirected or substituted into
--- a sender (`curl`, `wget`, `nc`, `ssh`, `dig`, ...), given to one as a
--- file (`curl -F f=@~/.aws/credentials`, `scp ~/.ssh/id_rsa host:`,
--- `rsync ~/.gnupg host:`), posted in a body (`curl -d "k=$AWS_SECRET_ACCESS_KEY"`,
--- `wget --post-data`) or sent by a one-line program (a secret variable
--- too, `os.environ['OPENAI_API_KEY']` in a URL of another host). Sending a token
--- to its own service (`curl -H "Authorization: Bearer $GITHUB_TOKEN"
--- ...`, `-H "... $(gh auth token)" https://api.github.com/...`, `-d
--- "token=$SLACK_BOT_TOKEN" https://slack.com/...`) is left alone.
---
--- It sees through `sudo`, `env X=1`, `nohup`, `time`, `timeout`, `xargs`,
--- `exec`, `command`, `busybox`, `parallel`, `;`/`&&`/`||`/`|` chains, `$(...)`,
--- backticks, `bash -c`/`sh -c`/`eval`/`su -c`/`watch`, `ssh host '...'`,
--- `gcloud compute ssh --command`, `vagrant ssh -c`, `ansible -m
--- shell|command -a`, `docker exec`, `docker compose exec|run`, `kubectl
--- exec`, `oc exec`, `lxc`/`incus`/`multipass exec --`, `docker run` and
--- `podman run` (paths inside bind mounts such as `-v /:/host` or `-v
--- "$PWD":/src` are the host's, the others the container's own; `chroot`
--- into a mount follows it, `nsenter` is the host), scripts written on the
--- line and run (`echo 'rm -rf ~' > x.sh && bash x.sh`), `... | while read
--- f; do rm -rf "$f"; done`, quoting and backslashes (`r\m`,
--- `"rm"`, `/bin/rm`), long and reordered flags (`--recursive --force`,
--- `-fr`, `-r -f`), `$IFS` and brace expansion (`{rm,-rf,/}`), variables
--- and aliases set earlier on the line (`R=rm; $R -rf /`; a value is
--- expanded when it is assigned, so a command line built from other
--- variables is seen: `D=/; cmd="rm -rf $D"; $cmd`, `c="rm -rf"; sudo $c
--- ~`; values made from a loop variable take each of its values), an
--- `IFS` of other characters than blanks splitting expanded words (`f(){
--- local IFS=,; set -- $1; rm -rf $2; }; f "x,/"`, `IFS=, read -ra`), a
--- value with blanks expanded outside quotes split into words
--- (`DIRS="build ~"; rm -rf $DIRS`, also inside a longer word,
--- `rm -rf build$v`, and where the line quotes it elsewhere, `echo "$v";
--- rm -rf $v`), substitutions that only print
--- (`"$(echo "$v")"`, `$(printf %s "$v")`, `$(cat <<<"$v")`, `$(realpath
--- "$v")`, backticks), substitutions that run a program printing the
--- paths it is given when one is critical (`rm -rf $(find / -maxdepth
--- 0)`, `$(ls -d ~)`, `$(cd .. && pwd)`, `$(echo / | tr -d x)`; not
--- `$(mktemp -d)`, `$(git ls-files -d)` or a `find` narrowed by `-name`),
--- arrays
--- (`a=(rm -rf ~); "${a[@]}"`, `declare -a`) and positional parameters
--- (`set -- rm -rf /; "$@"`, `shift`, `${@:2}`) set earlier on the line,
--- also by `read -a`, `readarray` and `mapfile` from a here-string or
--- here-document, by key (`declare -A`, `${m[key]}`) or one element
--- (`a[1]=/`), defaults (`${1:-~}`, `${DIR:-/}`), also inside loops and
--- function bodies (a body that shifts sees each argument as `$1`), loop
--- variables with each value of their list (`for d in build ~; do rm
--- -rf "$d"; done`; a loop without a list, `for p; do`, over the
--- positional parameters),
--- functions defined on the line and called (`f(){ rm -rf "$1"; }; f ~`,
--- the arguments put in for `$1`..`$9`, `$@`, `$*`, the body seeing what
--- was set before the call and its own `local`, `set --` and `shift`,
--- `${FUNCNAME[0]}` its name and `${FUNCNAME[1]}` its caller's; `command
--- NAME` runs the program, not the function; so too for `sh -c SCRIPT
--- NAME ARGS`, as in `find ~ -exec sh -c 'rm -rf "$1"' _ {} \;`, `$0`
--- being NAME and a loop without a list running over ARGS), `$(which
--- rm)`, `$(command -v rm)` and `$(printf 'rm -rf %s' ~)`, and one-line
--- programs (`python -c "shutil.rmtree('/')"`, also through `getattr` and
--- `__import__`, `node -e`, `bun -e`,
--- `deno eval`, `perl -e`, `ruby -e`, `php -r`, `lua -e`, `Rscript -e`,
--- `osascript -e`, awk programs that call `system()` or pipe to a
--- command, and any of these or `tclsh` fed a program on standard input)
--- that delete those paths (`.git` too, and what they list of the home
--- directory), run such commands, or run code they download
--- (`exec(urlopen(...).read())`, `fetch(...).then(eval)`).
---
--- PowerShell and cmd.exe lines (a tool whose commands are PowerShell,
--- such as Claude Code's `PowerShell`; an argv of `powershell -Command`,
--- `pwsh -c` or `cmd /c`; `powershell`, `pwsh` and `cmd` run from a POSIX
--- line; a line sent as POSIX that names what only PowerShell runs, as
--- Gemini CLI's `run_shell_command` on Windows) are read by a PowerShell
--- parser (blocks, subexpressions, pipelines, aliases, abbreviated
--- parameters, `cmd /c`, `-EncodedCommand`) and denied when they would:
--- delete (`Remove-Item`, `rm`, `ri`, `del /s`, `rd /s`, also piped from
--- `Get-ChildItem` or in a `ForEach-Object` block) a drive root (`C:\`,
--- `C:\*`, `\`, `$env:SystemDrive\`), the Windows directory or
--- `System32`, `C:\Users` or a home (`~`, `$HOME`, `$env:USERPROFILE`,
--- `%USERPROFILE%`, `$env:HOMEDRIVE$env:HOMEPATH`) or its main folders,
--- `Program Files`, `ProgramData`, a registry hive, a `.git` directory or
--- the working directory itself; erase disks (`Format-Volume`,
--- `Clear-Disk`, `Initialize-Disk`, `Remove-Partition`, `format D:`,
--- `diskpart /s` or fed `clean`), wipe free space (`cipher /w:`), delete
--- registry hives (`reg delete HKLM\SOFTWARE`), backups and recovery
--- (`vssadmin delete shadows`, `wmic shadowcopy delete`, `wbadmin
--- delete`, `bcdedit /delete`, `recoveryenabled No`), take over system
--- folders (`takeown /r`, `icacls /grant ... /T`), stop the host
--- (`Stop-Computer`, `Restart-Computer`) or every process (`Get-Process
--- | Stop-Process`, `taskkill /FI "STATUS eq RUNNING"`), wipe the history
--- (`Set-PSReadLineOption -HistorySaveStyle SaveNothing`, the PSReadLine
--- history file, `wevtutil cl`, `Clear-EventLog`), delete every
--- scheduled task (`schtasks /delete /tn *`), turn the firewall or
--- Defender off (`disable-protection`: `Set-NetFirewallProfile -Enabled
--- False`, `netsh advfirewall set allprofiles state off`,
--- `Set-MpPreference -Disable...`), remove cloud resources through the
--- clouds' modules (`Remove-AzResourceGroup`, `Remove-S3Bucket`, ...), or
--- run downloaded or decoded code (`irm URL | iex`, `iex (New-Object
--- Net.WebClient).DownloadString(URL)`, `[scriptblock]::Create((irm
--- URL))`, a download piped into `powershell`, a file downloaded and run
--- on the same line, `iex` of `[Convert]::FromBase64String(...)`). It
--- follows `Start-Process` of `cmd` or `powershell`, aliases defined on
--- the line (`Set-Alias`), variables assigned one value (`$p =
--- $env:USERPROFILE; Remove-Item $p -Recurse`, here-strings) and
--- `[IO.Directory]::Delete(...)`. The programs the rules above know
--- (`git`, `kubectl`, `terraform`, `psql`, ...; `Invoke-Sqlcmd` as
--- `sqlcmd`) meet the same rules in a PowerShell line. A PowerShell line
--- beyond the parser's bounds is denied when it names a program the pack
--- checks. Not read: loop variables (`foreach`), values built by
--- expressions, splatting, scripts run from files.
---
--- It leaves alone ordinary work: deleting build output and dependencies
--- (`rm -rf ./build node_modules /tmp/x`), text that merely mentions a
--- command (`echo "rm -rf /"`, `echo ':(){ :|:& };:'`, `grep 'rm -rf' notes.txt`,
--- `git commit -m "..."`), `git push --force-with-lease` and force pushes
--- to other branches, `git reset --soft`, `git checkout -- file`, reading
--- manuals (`man mkfs`), listing partitions (`fdisk -l`), making a file
--- system on an image file (`mkfs.ext4 disk.img`, `mkswap ./swapfile`),
--- SQL that only builds text (`SELECT 'DROP TABLE ' || t ...`, unless
--- `\gexec`, `EXECUTE` or a client it is piped into runs it), `terraform
--- plan -destroy` (applying the plan it writes is denied), and deleting
--- single cloud objects or pods.
---
--- The deny reason names the rule and the target in one line; it never
--- repeats the command, which might carry a secret.

local re = require("re")

local PACK = "deny-destructive"

local SPEC = {
  -- Deprecated (declare the tool with kind shell instead): RE2 matched against the names of tools the tool table does not know, whose input is a shell command.
  matcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the command of the tools matcher names; every string (or list of strings) among them is checked, and an input that is itself a string.
  commandFields = { "[]string", { "command", "cmd", "commands", "script" } },
  -- Branch names or globs (* stays within one path segment) that force pushes, branch deletions and pushes --delete may not target.
  protectedBranches = { "[]string", { "main", "master", "trunk", "develop", "production", "prod", "release/*", "release-*", "stable" } },
  -- Extra RE2 expressions: a command line, or one simple command of it (its words joined by spaces), that matches one is denied.
  extraPatterns = { "[]regex", {} },
  -- RE2 expressions: a command line that matches one is never denied by this pack (exempt wins over every rule).
  exempt = { "[]regex", {} },
  -- What to do when a command sends the environment or credentials over the network (env | curl -d @-, tar ~/.ssh | nc, curl -F f=@~/.aws/credentials, a one-liner that posts them).
  exfiltration = { "deny|ask|off", "ask" },
}

local P = require("monad.params").check(PACK, SPEC, params)

-- The shared command-line helpers (stdlib/lib/commands.lua): the simple
-- commands of a line and the words of a string (the host shell module), the
-- command strings of a tool input, and a command's words seen through
-- wrappers and flags.
local PATHS = require("monad.paths")
local C = require("monad.commands")
local commands, split = C.commands, C.split
local command_texts, basename, unwrap, parse_flags = C.command_texts, C.basename, C.unwrap, C.parse_flags

-- The values of variables as the shell puts them in (stdlib/lib/expand.lua),
-- shared with protect-paths.
local E = require("monad.expand")
local join = E.join

---------------------------------------------------------------------------
-- Paths
---------------------------------------------------------------------------

-- WHOLE are the globs that match every entry of a directory (or every
-- hidden one, or every one with a dot: near enough).
local WHOLE = {
  ["*"] = true, [".*"] = true, ["{*,.*}"] = true, ["{.*,*}"] = true, ["*.*"] = true,
  [".[!.]*"] = true, [".[^.]*"] = true, [".??*"] = true, ["{.[!.]*,*}"] = true, ["{*,.[!.]*}"] = true,
}

-- norm turns a shell word into a comparable path: ~ and $HOME become "~",
-- "~user" becomes /home/user, // . and .. are resolved lexically, trailing
-- slashes and a trailing /* or /.* are dropped.
local function norm(p)
  if p == nil or p == "" then
    return nil
  end
  p = re.gsub(p, [[^(\$\{HOME\}|\$HOME\b|\$\{HOME:?[-?=+][^}]*\})]], "~")
  p = re.gsub(p, [[^(\$\{USERPROFILE\}|\$USERPROFILE|%USERPROFILE%)]], "~")
  if re.match(p, "^~[A-Za-z_][A-Za-z0-9_.-]*(/|$)") then
    p = "/home/" .. string.sub(p, 2)
  end
  local abs = string.sub(p, 1, 1) == "/"
  local home = p == "~" or string.sub(p, 1, 2) == "~/"
  local parts = {}
  for seg in string.gmatch(p, "[^/]+") do
    if seg == "." then
      -- skip
    elseif seg == ".." then
      if #parts > 0 and parts[#parts] ~= ".." and not (home and #parts == 1) then
        parts[#parts] = nil
      elseif not abs and not home then
        parts[#parts + 1] = ".."
      end
    else
      parts[#parts + 1] = seg
    end
  end
  -- a trailing glob over a directory's contents stands for the directory
  -- (a lone one for the working directory)
  if WHOLE[parts[#parts]] then
    parts[#parts] = nil
  end
  local s = table.concat(parts, "/")
  if abs then
    return "/" .. s
  end
  if s == "" then
    return "."
  end
  return s
end

local HOME_KEEP = {
  [".cache"] = true, [".npm"] = true, [".yarn"] = true, [".pnpm-store"] = true,
  [".gradle"] = true, [".m2"] = true, [".bun"] = true, [".deno"] = true,
  [".cargo"] = false, ["tmp"] = true, [".tmp"] = true, [".local"] = false,
  [".node-gyp"] = true, [".nuget"] = true, [".pub-cache"] = true,
  [".android"] = false, [".vscode-server"] = true, [".trash"] = true,
}

local SYSTEM_ANY_DEPTH = {
  etc = true, boot = true, bin = true, sbin = true, lib = true, lib32 = true,
  lib64 = true, libx32 = true, sys = true, proc = true, System = true,
  private = true, efi = true,
}

local SECRET_HOME = { [".ssh"] = true, [".gnupg"] = true, [".aws"] = true, [".kube"] = true, [".password-store"] = true }

local MOUNTS = { mnt = true, media = true, Volumes = true, srv = true }

-- DATA_DIRS are where databases and container runtimes keep their data,
-- at any depth (on a host, or in a container through kubectl or docker
-- exec).
local DATA_DIRS = [[^/(var/lib/(postgresql|pgsql|mysql|mysql-files|mariadb|mongodb|mongo|redis|etcd|elasticsearch|opensearch|cassandra|clickhouse|influxdb|neo4j|couchdb|rabbitmq|docker|containerd|kubelet|minio|zookeeper|kafka|prometheus|grafana)|data/(db|configdb)|bitnami/[^/]+|var/opt/mssql)(/|$)]]

local function split_path(s)
  local parts = {}
  for seg in string.gmatch(s, "[^/]+") do
    parts[#parts + 1] = seg
  end
  return parts
end

-- home_child classifies a path below a home directory (rest = the segments
-- after it) for a recursive (rec) or plain deletion.
local function home_child(rest, rec, disp)
  if #rest == 0 then
    if rec then
      return "a home directory (" .. disp .. ")"
    end
    return nil
  end
  if SECRET_HOME[rest[1]] then
    return "credentials in " .. disp
  end
  if rest[1] == ".git" then
    return nil
  end
  if #rest == 1 and rec and HOME_KEEP[rest[1]] ~= true then
    return "a top-level folder of a home directory (" .. disp .. ")"
  end
  return nil
end

-- CWD is the working directory of the tool call being checked (the
-- input's cwd, when absolute), set by the hook for the call.
local CWD = nil
local clean = require("path").clean

-- SCRIPTS and COPIES are what the command line being checked wrote to
-- files (reset per call): the text of scripts (echo ... > x.sh, then bash
-- x.sh runs it), and what secret a file now holds (env > /tmp/e, cp
-- ~/.aws/credentials /tmp/c), by normalized path.
local SCRIPTS, COPIES = {}, {}

-- ROOT is the project root (the host's sandbox root, path.root()), when
-- known: a working directory below it is not the project itself.
local ROOT = require("path").root()
if string.sub(ROOT, 1, 1) == "/" then
  ROOT = clean(ROOT)
else
  ROOT = nil
end

-- inside_project says whether the relative path p (., .., ../..) names a
-- directory strictly inside the project root, given CWD and ROOT (cd
-- build && rm -rf * empties build, not the project).
local function inside_project(p)
  if ROOT == nil or CWD == nil then
    return false
  end
  local abs = clean(CWD .. "/" .. p)
  return abs ~= ROOT and (ROOT == "/" or string.sub(abs, 1, string.len(ROOT) + 1) == ROOT .. "/")
end

-- relative_to_cwd turns an absolute path, or a relative one that climbs
-- with .., into "." when it is the working directory and ".." when it is
-- a parent of it (a path above the project), given CWD; else it returns p.
local function relative_to_cwd(p)
  if CWD == nil then
    return p
  end
  local abs = p
  if string.sub(p, 1, 1) ~= "/" then
    if string.sub(p, 1, 2) ~= ".." then
      return p
    end
    abs = clean(CWD .. "/" .. p)
  end
  if abs == CWD then
    return "."
  end
  if string.sub(CWD, 1, string.len(abs) + 1) == abs .. "/" then
    return ".."
  end
  return p
end

local critical
local printed_by

-- history_file says whether a path is a shell's or a REPL's history file
-- (deleting or emptying it covers the agent's tracks).
local function history_file(p)
  local base = string.match(p or "", "([^/]*)$") or ""
  return re.match(base, [[^(\.(bash|zsh|sh|ksh|mksh|python|psql|mysql|node_repl|sqlite|rediscli|irb|pry|lesshst)_history|\.history|fish_history|\.zhistory)$]])
end

-- MAPS, while a command runs in a container (docker run -v SRC:DST ...),
-- maps the container's paths to the host's: {workdir = "/", list = {{dst,
-- src}, ...}} (longest dst first). Paths outside every mount are the
-- container's own and never critical.
local MAPS = nil

-- host_path returns the host path a normalized container path stands for,
-- or nil when it is the container's own.
local function map_path(p)
  for _, m in ipairs(MAPS.list) do
    local dst, src = m[1], m[2]
    if p == dst then
      return src
    end
    if dst == "/" then
      return src == "/" and p or src .. p
    end
    if string.sub(p, 1, string.len(dst) + 1) == dst .. "/" then
      return src .. string.sub(p, string.len(dst) + 1)
    end
  end
  return nil
end

local function host_path(p)
  if string.sub(p, 1, 1) == "~" then
    -- a mount written with $HOME on both sides (-v $HOME:$HOME)
    local h = map_path(p)
    if h then
      return h
    end
    p = "/root" .. string.sub(p, 2)
  end
  if string.sub(p, 1, 1) ~= "/" then
    p = clean(MAPS.workdir .. "/" .. p)
  end
  return map_path(p)
end

-- critical says why deleting path p (recursively when rec) is destructive,
-- or returns nil. mode "perm" (chmod/chown) ignores . and .git.
critical = function(raw, rec, mode)
  -- a path a command prints: rm -rf $(find / -maxdepth 0)
  if type(raw) == "string" and (string.find(raw, "$(", 1, true) or string.find(raw, "`", 1, true)) then
    local why = printed_by(raw, rec, mode)
    if why then
      return why
    end
  end
  local p = norm(raw)
  if p == nil then
    return nil
  end
  if mode ~= "perm" and history_file(p) then
    return "the shell history (" .. p .. ")"
  end
  if MAPS then
    local host = host_path(p)
    if host == nil then
      return nil
    end
    local maps = MAPS
    MAPS = nil
    local why = critical(host, rec, mode)
    MAPS = maps
    return why
  end
  if mode ~= "perm" and p ~= "/" and p ~= "~" then
    p = relative_to_cwd(p)
  end
  if p == "/" then
    return "the filesystem root (/)"
  end
  if p == "~" then
    return "the home directory (~)"
  end
  if mode ~= "perm" then
    if p == "." and rec and not inside_project(p) then
      return "the whole working directory (.)"
    end
    if re.match(p, [[^\.\.(/\.\.)*$]]) and rec and not inside_project(p) then
      return "a parent of the working directory (" .. p .. ")"
    end
    if (p == ".git" or re.match(p, [[/\.git$]])) and (rec or mode == "force") then
      return "the repository's history (" .. p .. ")"
    end
  end
  local parts = split_path(p)
  if string.sub(p, 1, 2) == "~/" then
    table.remove(parts, 1)
    return home_child(parts, rec, p)
  end
  if string.sub(p, 1, 1) ~= "/" then
    return nil
  end
  local top = parts[1]
  if p == "/tmp" or p == "/var/tmp" then
    if rec then
      return "the temporary directory (" .. p .. ")"
    end
    return nil
  end
  if #parts == 1 then
    if rec or SYSTEM_ANY_DEPTH[top] or top == "usr" then
      return "a top-level system directory (" .. p .. ")"
    end
    return nil
  end
  if top == "home" or top == "Users" then
    local rest = {}
    for k = 3, #parts do
      rest[#rest + 1] = parts[k]
    end
    return home_child(rest, rec, p)
  end
  if top == "root" then
    local rest = {}
    for k = 2, #parts do
      rest[#rest + 1] = parts[k]
    end
    return home_child(rest, rec, p)
  end
  if SYSTEM_ANY_DEPTH[top] then
    return "a system directory (" .. p .. ")"
  end
  if top == "dev" then
    if parts[2] == "shm" or parts[2] == "null" then
      return nil
    end
    return "a device node (" .. p .. ")"
  end
  if top == "usr" then
    if parts[2] == "local" and #parts >= 3 then
      return nil
    end
    return "a system directory (" .. p .. ")"
  end
  if rec and re.match(p, DATA_DIRS) then
    return "a database's data (" .. p .. ")"
  end
  if top == "var" then
    if #parts == 2 and rec then
      return "a system directory (" .. p .. ")"
    end
    if parts[2] == "lib" and (#parts == 3 and rec or #parts == 2) then
      return "system state (" .. p .. ")"
    end
    return nil
  end
  if MOUNTS[top] and #parts == 2 and rec then
    return "a mounted volume (" .. p .. ")"
  end
  if top == "Library" or top == "Applications" or top == "opt" and #parts == 2 and rec then
    if top == "opt" then
      return nil
    end
    return "a system directory (" .. p .. ")"
  end
  return nil
end

local SAFE_DEV = {
  ["/dev/null"] = true, ["/dev/zero"] = true, ["/dev/full"] = true, ["/dev/random"] = true,
  ["/dev/urandom"] = true, ["/dev/stdin"] = true, ["/dev/stdout"] = true,
  ["/dev/stderr"] = true, ["/dev/tty"] = true, ["/dev/ptmx"] = true, ["/dev/console"] = false,
}

-- device says whether p names a block or raw device (anything under /dev but
-- the character devices programs write to routinely).
local function device(p)
  if type(p) ~= "string" or string.sub(p, 1, 5) ~= "/dev/" then
    return false
  end
  p = norm(p)
  if SAFE_DEV[p] then
    return false
  end
  if re.match(p, [[^/dev/(fd/|pts/|shm/|tty|std|null|log$|mqueue/)]]) then
    return false
  end
  return true
end

local function branch_protected(b)
  if b == nil or b == "" then
    return false
  end
  b = re.gsub(b, "^refs/heads/", "")
  for _, g in ipairs(P.protectedBranches) do
    local rx = "^" .. re.gsub(re.gsub(g, [[([.+?^$(){}\[\]|\\])]], [[\$1]]), [[\*]], "[^/]*") .. "$"
    if re.match(b, rx) then
      return true
    end
  end
  return false
end

---------------------------------------------------------------------------
-- Rules
---------------------------------------------------------------------------

local H = {}        -- command name -> checker(words, ctx) -> rule, detail
local check_line    -- forward declarations
local check_pwsh
local check_argv
local names_rule_program
local lister_deletes
local container_run
local code_exfiltration

local function deny(rule, detail)
  return rule, detail
end

-- at resolves a relative path against the directory a cd earlier on the
-- line moved to.
local function at(ctx, p)
  if ctx.cwd == nil or p == nil or p == "" then
    return p
  end
  local c = string.sub(p, 1, 1)
  if c == "/" or c == "~" or c == "$" then
    return p
  end
  return ctx.cwd .. "/" .. p
end

local function rm_like(w, ctx, name)
  local f = parse_flags(w, 2, "")
  local rec = (f.s.r or f.s.R or f.l.recursive) and true or false
  local force = f.s.f or f.l.force
  if ctx.read_vars then
    -- ... | while read f; do rm -rf "$f"; done: f is what the lister lists
    for _, t in ipairs(f.args) do
      local v = string.match(t, "^%$%{?([%a_][%w_]*)%}?$")
      if v and ctx.read_vars[v] then
        local rule, detail = lister_deletes(ctx.read_vars[v], ctx)
        if rule then
          return rule, detail
        end
      end
    end
  end
  if ctx.stdin_lister then
    -- find ... | xargs rm: judged as the lister deleting what it lists
    local rule, detail = lister_deletes(ctx.stdin_lister, ctx)
    if rule then
      return rule, detail
    end
  end
  local targets = {}
  for _, t in ipairs(f.args) do
    if t == "{}" and ctx.stdin_paths then
      for _, x in ipairs(ctx.stdin_paths) do
        targets[#targets + 1] = x
      end
    else
      targets[#targets + 1] = t
    end
  end
  if #targets == 0 and ctx.stdin_paths then
    targets = ctx.stdin_paths
  end
  for _, t in ipairs(targets) do
    local why = critical(at(ctx, t), rec, force and "force" or nil)
    if why then
      local how = name
      if rec then
        how = how .. " -r"
      end
      return deny("delete-critical", how .. " would delete " .. why)
    end
  end
end

H.rm = function(w, ctx) return rm_like(w, ctx, "rm") end
H.unlink = function(w, ctx) return rm_like(w, ctx, "unlink") end
H.rmdir = function() return nil end
H.srm = function(w, ctx) return rm_like(w, ctx, "srm") end
H.trash = function() return nil end

H.shred = function(w, ctx)
  local f = parse_flags(w, 2, "nsx")
  for _, t in ipairs(f.args) do
    if device(t) then
      return deny("wipe-device", "shred would overwrite the device " .. norm(t))
    end
    local why = critical(t, true)
    if why then
      return deny("delete-critical", "shred would destroy " .. why)
    end
  end
end

H.mv = function(w, ctx)
  local f = parse_flags(w, 2, "tS")
  local n = #f.args
  if n < 1 then
    return nil
  end
  local dest = f.vals.t or f.args[n]
  local last = f.vals.t and n or n - 1
  for k = 1, last do
    local why = critical(at(ctx, f.args[k]), true, "perm")
    if why then
      return deny("move-critical", "mv would move away " .. why)
    end
  end
  if dest and string.sub(dest, 1, 5) == "/dev/" then
    return deny("move-critical", "mv into " .. norm(dest) .. " would destroy what is moved")
  end
end

local function perm_like(w, ctx, name)
  local f = parse_flags(w, 2, "")
  local rec = f.s.R or f.l.recursive
  -- the first operand of chmod/chown/chgrp is the mode or the owner
  local first = 2
  if f.l.reference then
    first = 1
  end
  for k = first, #f.args do
    local arg = at(ctx, f.args[k])
    local p = norm(arg)
    local why
    if rec then
      why = critical(arg, true, "perm")
    elseif p == "/" or p == "~" then
      why = critical(arg, true, "perm")
    end
    if why then
      return deny("perm-critical", name .. (rec and " -R" or "") .. " would change " .. why)
    end
  end
end

H.chmod = function(w, ctx) return perm_like(w, ctx, "chmod") end
H.chown = function(w, ctx) return perm_like(w, ctx, "chown") end
H.chgrp = function(w, ctx) return perm_like(w, ctx, "chgrp") end
H.setfacl = function(w, ctx) return perm_like(w, ctx, "setfacl") end
-- chattr -R +i /: its mode (+i, -a, =e) may look like an option
H.chattr = function(w, ctx)
  local rest = { w[1], "-R" }
  local rec = false
  for k = 2, #w do
    local a = w[k]
    if re.match(a, "^-[RVf]+$") then
      rec = rec or string.find(a, "R", 1, true) ~= nil
    elseif not re.match(a, "^[-+=][aAcCdDeFijmPsStTux]+$") and not re.match(a, "^-[vpV]$") then
      rest[#rest + 1] = a
    end
  end
  if not rec then
    table.remove(rest, 2)
  end
  table.insert(rest, rec and 3 or 2, "mode")
  return perm_like(rest, ctx, "chattr")
end

H.rsync = function(w)
  local f = parse_flags(w, 2, "eBfT")
  local del = false
  for k in pairs(f.l) do
    if string.sub(k, 1, 6) == "delete" or k == "remove-source-files" then
      del = true
    end
  end
  if not del or #f.args < 2 then
    return nil
  end
  local dest = f.args[#f.args]
  local why = critical(dest, true)
  if why then
    return deny("delete-critical", "rsync --delete would empty " .. why)
  end
end

-- FIND_FILTERS are the tests of find that narrow what it matches to a few
-- chosen files: names, paths, inodes, empty files. Types, times, sizes,
-- owners and depths do not: find ~ -mtime +30 -delete still empties most
-- of a home directory.
local FIND_FILTERS = {
  name = true, iname = true, path = true, ipath = true, wholename = true, iwholename = true,
  regex = true, iregex = true, lname = true, ilname = true, empty = true, inum = true,
  samefile = true, links = true,
}
local NAME_TESTS = { name = true, iname = true, path = true, ipath = true, wholename = true, iwholename = true, regex = true, iregex = true, lname = true, ilname = true }
local TRIVIAL_NAME = { ["*"] = true, [".*"] = true, ["*.*"] = true, ["*/*"] = true, ["./*"] = true, [".*/.*"] = true }

local DELETERS = { rm = true, unlink = true, shred = true, srm = true, rmdir = true }

H.find = function(w, ctx)
  local starts, i = {}, 2
  while i <= #w and not re.match(w[i], [[^(-|\(|!|\))]]) do
    starts[#starts + 1] = w[i]
    i = i + 1
  end
  if #starts == 0 then
    starts[1] = "."
  end
  for k, st in ipairs(starts) do
    starts[k] = at(ctx, st)
  end
  local filtered, deletes, execs = false, false, {}
  while i <= #w do
    local a = w[i]
    local opt = string.match(a, "^%-(%a+)$")
    -- a name pattern that matches everything does not narrow, nor does a
    -- negated test (! -name . matches everything but .)
    local negated = w[i - 1] == "!" or w[i - 1] == "-not"
    if opt and FIND_FILTERS[opt] and not negated then
      if not (NAME_TESTS[opt] and TRIVIAL_NAME[w[i + 1] or ""]) then
        filtered = true
      end
    end
    if a == "-delete" then
      deletes = true
    elseif a == "-exec" or a == "-execdir" or a == "-ok" or a == "-okdir" then
      local cmd = {}
      i = i + 1
      while i <= #w and w[i] ~= ";" and w[i] ~= "+" and w[i] ~= "\\;" do
        cmd[#cmd + 1] = w[i]
        i = i + 1
      end
      execs[#execs + 1] = cmd
    end
    i = i + 1
  end
  for _, cmd in ipairs(execs) do
    local eff = unwrap(cmd)
    if DELETERS[basename(eff[1])] then
      deletes = true
    end
  end
  if deletes then
    for _, s in ipairs(starts) do
      local why = critical(s, true)
      local p = norm(s)
      local broad = p == "/" or (why ~= nil and re.match(why, "system|root|device"))
      if why and (broad or not filtered) then
        return deny("delete-critical", "find would delete files in " .. why)
      end
    end
  end
  for _, cmd in ipairs(execs) do
    local eff = unwrap(cmd)
    if not DELETERS[basename(eff[1])] then
      for k, a in ipairs(cmd) do
        if a == "{}" then
          cmd[k] = filtered and (starts[1] .. "/_/_") or starts[1]
        end
      end
      local rule, detail = check_argv(cmd, ctx)
      if rule then
        return rule, detail
      end
    end
  end
end

-- FD_TAKES are the options of fd that take a value.
local FD_TAKES = {
  ["-e"] = true, ["--extension"] = true, ["-t"] = true, ["--type"] = true, ["-E"] = true,
  ["--exclude"] = true, ["-d"] = true, ["--max-depth"] = true, ["--min-depth"] = true,
  ["--exact-depth"] = true, ["-S"] = true, ["--size"] = true, ["--changed-within"] = true,
  ["--changed-before"] = true, ["-o"] = true, ["--owner"] = true, ["-j"] = true,
  ["--threads"] = true, ["--base-directory"] = true, ["--search-path"] = true,
  ["-c"] = true, ["--color"] = true, ["--max-results"] = true, ["--ignore-file"] = true,
  ["--format"] = true, ["--batch-size"] = true, ["--path-separator"] = true,
}
local TRIVIAL_FD = { [""] = true, ["."] = true, ["^"] = true, [".*"] = true, ["^.*$"] = true, ["*"] = true }

-- fd [options] [pattern] [path...] [-x|-X command]: like find, it deletes
-- what it matches when its command is a deleter.
H.fd = function(w, ctx)
  local operands, starts, execs = {}, {}, {}
  local filtered = false
  local i = 2
  while i <= #w do
    local a = w[i]
    if a == "-x" or a == "--exec" or a == "-X" or a == "--exec-batch" then
      local cmd = {}
      i = i + 1
      while i <= #w and w[i] ~= ";" and w[i] ~= "\\;" do
        cmd[#cmd + 1] = w[i]
        i = i + 1
      end
      execs[#execs + 1] = cmd
    elseif FD_TAKES[a] then
      if a == "-e" or a == "--extension" then
        filtered = true
      elseif a == "--search-path" then
        starts[#starts + 1] = w[i + 1]
      end
      i = i + 1
    elseif string.sub(a, 1, 12) == "--extension=" then
      filtered = true
    elseif string.sub(a, 1, 1) ~= "-" then
      operands[#operands + 1] = a
    end
    i = i + 1
  end
  if operands[1] and not TRIVIAL_FD[operands[1]] then
    filtered = true
  end
  for k = 2, #operands do
    starts[#starts + 1] = operands[k]
  end
  if #starts == 0 then
    starts[1] = "."
  end
  local deletes = ctx.fd_deletes
  for _, cmd in ipairs(execs) do
    if DELETERS[basename(unwrap(cmd)[1])] then
      deletes = true
    end
  end
  if not deletes then
    return nil
  end
  for _, st in ipairs(starts) do
    st = at(ctx, st)
    local why = critical(st, true)
    local broad = norm(st) == "/" or (why ~= nil and re.match(why, "system|root|device"))
    if why and (broad or not filtered) then
      return deny("delete-critical", "fd would delete files in " .. why)
    end
  end
end

-- lister_deletes judges find or fd (the words of a pipeline's first stage)
-- as if it deleted what it lists, for find ... | xargs rm.
lister_deletes = function(lw, ctx)
  local name = basename(lw[1])
  local words = {}
  for k = 1, #lw do
    words[k] = lw[k]
  end
  local sub = { depth = ctx.depth, cwd = ctx.cwd }
  if name == "ls" then
    -- ls lists the entries of its operands (of . when there are none)
    local f = parse_flags(words, 2, "IwT")
    if #f.args == 0 then
      f.args[1] = "."
    end
    for _, a in ipairs(f.args) do
      local why = critical(at(ctx, a) .. "/*", true)
      if why then
        return deny("delete-critical", "deleting what ls lists would delete " .. why)
      end
    end
    return nil
  end
  if name == "find" then
    words[#words + 1] = "-delete"
    return H.find(words, sub)
  end
  sub.fd_deletes = true
  return H.fd(words, sub)
end

-- Block devices and file systems.

H.dd = function(w)
  for k = 2, #w do
    local of = string.match(w[k], "^of=(.+)$")
    if of and device(of) then
      return deny("write-device", "dd would overwrite the device " .. norm(of))
    end
    if of then
      local why = critical(of, false)
      if why then
        return deny("write-device", "dd would overwrite " .. why)
      end
    end
  end
end

-- only_info says whether a command only prints help, its version or (for
-- partitioning tools, listing) information.
local function only_info(w, listing)
  for k = 2, #w do
    local a = w[k]
    if a == "--help" or a == "-help" or a == "-V" or a == "--version" then
      return true
    end
    if listing and (a == "-l" or a == "--list" or a == "-L" or a == "print" or a == "-p" or a == "--print" or a == "-h") then
      return true
    end
  end
  return #w < 2
end

-- fs_maker denies making or wiping a file system on a device, on a target
-- it cannot know ($DEV) or on a critical path; an image file (mkfs.ext4
-- disk.img, mkswap ./swapfile) is ordinary work, and so is the new file
-- mktemp made (img=$(mktemp); mkfs.vfat "$img": mktemp never names a
-- device that exists).
local function fs_maker(label)
  return function(w)
    if only_info(w) then
      return nil
    end
    local after_opt = false
    for k = 2, #w do
      local a = w[k]
      if device(a) or (re.find(a, "[$`]") and not re.match(a, [[^"?\$\(mktemp(\s[^()$`;|&<>]*)?\)"?$]])) then
        return deny("format-device", label .. " would erase a file system or partition table on " .. (device(a) and norm(a) or "a device it names by a variable"))
      end
      local value = after_opt and not string.find(a, "[/.]")
      after_opt = re.match(a, "^-[A-Za-z]$") ~= nil
      if not value and string.sub(a, 1, 1) ~= "-" and not re.match(a, "^[0-9]+[kKmMgG]?$") then
        local why = critical(a, false)
        if why then
          return deny("format-device", label .. " would overwrite " .. why)
        end
      end
    end
    return nil
  end
end

for _, n in ipairs({ "mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "mkexfatfs", "newfs", "wipefs", "blkdiscard", "mkisofs_", "cfdisk", "sfdisk" }) do
  H[n] = fs_maker(n)
end

local function partitioner(name)
  return function(w)
    if only_info(w, true) then
      return nil
    end
    for k = 2, #w do
      if device(w[k]) then
        return deny("format-device", name .. " would rewrite the partition table of " .. norm(w[k]))
      end
    end
  end
end
H.fdisk = partitioner("fdisk")
H.gdisk = partitioner("gdisk")
H.parted = partitioner("parted")

H.sgdisk = function(w)
  for k = 2, #w do
    if w[k] == "-Z" or w[k] == "--zap-all" or w[k] == "-o" or w[k] == "--clear" or w[k] == "-z" or w[k] == "--zap" then
      return deny("format-device", "sgdisk would erase a partition table")
    end
  end
end

H.hdparm = function(w)
  for k = 2, #w do
    if re.match(w[k], "^--(security-erase|security-erase-enhanced|trim-sector-ranges|write-sector|make-bad-sector)") then
      return deny("format-device", "hdparm would erase or overwrite a disk")
    end
  end
end

H.nvme = function(w)
  if w[2] == "format" or w[2] == "sanitize" then
    return deny("format-device", "nvme " .. w[2] .. " would erase a disk")
  end
end

H.diskutil = function(w)
  local v = string.lower(w[2] or "")
  if re.match(v, "^(erasedisk|erasevolume|zerodisk|randomdisk|secureerase|partitiondisk|reformat|apfs)$") then
    if v ~= "apfs" or re.match(string.lower(w[3] or ""), "^(deletecontainer|deletevolume|erasevolume)$") then
      return deny("format-device", "diskutil " .. w[2] .. " would erase a disk")
    end
  end
end

H.cryptsetup = function(w)
  for k = 2, #w do
    if w[k] == "luksFormat" or w[k] == "erase" or w[k] == "luksErase" then
      return deny("format-device", "cryptsetup " .. w[k] .. " would destroy an encrypted volume")
    end
  end
end

H.mdadm = function(w)
  for k = 2, #w do
    if w[k] == "--zero-superblock" or re.match(w[k], "^(--create|-C)$") then
      for j = 2, #w do
        if device(w[j]) or re.find(w[j], "[$`]") then
          return deny("format-device", "mdadm " .. w[k] .. " would erase the RAID metadata of a disk")
        end
      end
    end
  end
end

H.zpool = function(w)
  if w[2] == "destroy" or w[2] == "labelclear" then
    return deny("format-device", "zpool " .. w[2] .. " would destroy a storage pool")
  end
end
H.zfs = function(w)
  if w[2] == "destroy" then
    return deny("format-device", "zfs destroy would destroy a dataset")
  end
end
for _, n in ipairs({ "lvremove", "vgremove", "pvremove" }) do
  H[n] = function(w)
    if only_info(w) then
      return nil
    end
    return deny("format-device", n .. " would destroy a logical volume")
  end
end

local function writes_device(name)
  return function(w)
    local f = parse_flags(w, 2, "")
    for _, t in ipairs(f.args) do
      if device(t) then
        return deny("write-device", name .. " would overwrite the device " .. norm(t))
      end
    end
  end
end
H.tee = writes_device("tee")
H.cp = function(w)
  local f = parse_flags(w, 2, "tS")
  local dest = f.vals.t or f.args[#f.args]
  if #f.args >= 2 and device(dest) then
    return deny("write-device", "cp would overwrite the device " .. norm(dest))
  end
  if #f.args >= 2 and history_file(norm(dest)) then
    return deny("history-wipe", "cp would overwrite the shell history (" .. norm(dest) .. ")")
  end
end
H.ln = function(w)
  local f = parse_flags(w, 2, "tS")
  local dest = f.vals.t or f.args[#f.args]
  if #f.args >= 2 and history_file(norm(dest)) then
    return deny("history-wipe", "ln would replace the shell history (" .. norm(dest) .. ")")
  end
end
H.cat = function() return nil end

H.truncate = function(w)
  local f = parse_flags(w, 2, "sr")
  for _, t in ipairs(f.args) do
    local why = critical(t, false)
    if why then
      return deny("overwrite-critical", "truncate would empty " .. why)
    end
  end
end

-- The host.

local function host_power(name)
  return function(w)
    for k = 2, #w do
      if w[k] == "-c" or w[k] == "--help" or w[k] == "-h" and name ~= "shutdown" then
        return nil
      end
    end
    return deny("host-power", name .. " would shut down or restart the host")
  end
end
for _, n in ipairs({ "shutdown", "reboot", "halt", "poweroff" }) do
  H[n] = host_power(n)
end
H.init = function(w)
  if w[2] == "0" or w[2] == "6" then
    return deny("host-power", "init " .. w[2] .. " would shut down or restart the host")
  end
end
H.telinit = H.init
H.systemctl = function(w)
  for k = 2, #w do
    if re.match(w[k], "^(poweroff|reboot|halt|kexec|emergency|rescue|soft-reboot)$") then
      return deny("host-power", "systemctl " .. w[k] .. " would shut down or restart the host")
    end
    if w[k] == "isolate" and re.match(w[k + 1] or "", "^(poweroff|reboot|halt|rescue|emergency|runlevel[06])") then
      return deny("host-power", "systemctl isolate would shut down or restart the host")
    end
  end
end
H.loginctl = function(w)
  if w[2] == "poweroff" or w[2] == "reboot" or w[2] == "halt" then
    return deny("host-power", "loginctl " .. w[2] .. " would shut down or restart the host")
  end
end

H.kill = function(w)
  local i = 2
  while i <= #w do
    local a = w[i]
    if a == "-s" or a == "-n" or a == "--signal" then
      i = i + 2
    elseif a == "--" then
      i = i + 1
      break
    elseif re.match(a, "^-([0-9]+|[A-Za-z][A-Za-z0-9+]*)$") and i == 2 and a ~= "-1" then
      i = i + 1
    elseif a == "-1" and i == 2 and w[3] ~= nil then
      i = i + 1 -- "kill -1 PID": signal 1 (HUP)
    else
      break
    end
  end
  for k = i, #w do
    if w[k] == "-1" then
      return deny("kill-all", "kill -1 would kill every process you can signal")
    end
    if w[k] == "1" then
      return deny("kill-all", "kill 1 would kill init")
    end
  end
end
H.killall5 = function() return deny("kill-all", "killall5 would kill every process") end
H.pkill = function(w)
  for k = 2, #w do
    if w[k] == "-1" or w[k] == "." or w[k] == ".*" or w[k] == "''" then
      return deny("kill-all", "pkill would kill every process it matches")
    end
  end
end

H.crontab = function(w)
  local f = parse_flags(w, 2, "uc")
  if f.s.r then
    return deny("delete-critical", "crontab -r would delete every cron job")
  end
  -- crontab FILE and crontab - (a pipe, a here-document) install a new table
  if #f.args > 0 and not (f.s.l or f.s.e) then
    return deny("crontab-replace", "crontab " .. (f.args[1] == "-" and "-" or "FILE") .. " would replace every cron job with what it reads")
  end
end

-- The shell history: wiping it (or stopping it) covers the agent's tracks.

H.history = function(w)
  for k = 2, #w do
    local a = w[k]
    if re.match(a, "^-[a-z]*c[a-z]*$") then
      return deny("history-wipe", "history -c would wipe the shell history")
    end
    if a == "-d" and w[k + 1] and re.match(w[k + 1], "^-?[0-9]+--?[0-9]+$") then
      return deny("history-wipe", "history -d of a range would wipe the shell history")
    end
    if (a == "-w" or a == "-a") and w[k + 1] and norm(w[k + 1]) == "/dev/null" then
      return deny("history-wipe", "history " .. a .. " /dev/null would discard the shell history")
    end
  end
end
H.unset = function(w)
  for k = 2, #w do
    if w[k] == "HISTFILE" then
      return deny("history-wipe", "unset HISTFILE would stop the shell history")
    end
  end
end
H.set = function(w)
  for k = 2, #w - 1 do
    if w[k] == "+o" and w[k + 1] == "history" then
      return deny("history-wipe", "set +o history would stop the shell history")
    end
  end
end

-- history_var says whether assigning value to name stops or wipes the
-- shell history (HISTFILE=/dev/null, HISTSIZE=0).
local function history_var(name, value)
  if name == "HISTFILE" then
    return value == "" or value == "/dev/null"
  end
  if name == "HISTSIZE" or name == "HISTFILESIZE" or name == "SAVEHIST" then
    return value == "0"
  end
  return false
end

-- git

local GIT_GLOBAL_TAKES = { ["-C"] = true, ["-c"] = true, ["--git-dir"] = true, ["--work-tree"] = true, ["--namespace"] = true, ["--exec-path"] = false, ["--config-env"] = true }

local function whole_tree(p)
  return p == "." or p == "./" or p == "*" or p == ":/" or p == ":(top)" or p == ":/*" or p == ":(glob)**" or p == ".." or p == "../"
end

local GIT = {}

GIT.push = function(a)
  local force, lease, mirror, del, all = false, false, false, false, false
  local refs = {}
  local i = 1
  while i <= #a do
    local x = a[i]
    if x == "--force" or x == "-f" or x == "--force-if-includes" then
      force = true
    elseif string.sub(x, 1, 18) == "--force-with-lease" then
      lease = true
    elseif x == "--mirror" then
      mirror = true
    elseif x == "--delete" or x == "-d" then
      del = true
    elseif x == "--all" or x == "--branches" then
      all = true
    elseif x == "-o" or x == "--push-option" or x == "--repo" or x == "--receive-pack" or x == "--exec" then
      i = i + 1
    elseif string.sub(x, 1, 1) == "-" and string.sub(x, 2, 2) ~= "-" and string.find(x, "f", 2, true) then
      force = true -- -uf, -fu
    elseif string.sub(x, 1, 1) ~= "-" then
      refs[#refs + 1] = x
    end
    i = i + 1
  end
  if mirror then
    return deny("git-force-push", "git push --mirror would overwrite every branch of the remote")
  end
  -- refs[1] is the remote
  local specs = {}
  for k = 2, #refs do
    specs[#specs + 1] = refs[k]
  end
  for _, s in ipairs(specs) do
    local plus = string.sub(s, 1, 1) == "+"
    if plus then
      s = string.sub(s, 2)
    end
    local dst = s
    local colon = string.find(s, ":", 1, true)
    if colon then
      dst = string.sub(s, colon + 1)
      if colon == 1 and branch_protected(dst) then
        return deny("git-delete-branch", "git push :" .. dst .. " would delete a protected branch")
      end
    end
    if (force or lease or plus) and branch_protected(dst) then
      return deny("git-force-push", "git force push would rewrite the protected branch " .. re.gsub(dst, "^refs/heads/", ""))
    end
    if del and branch_protected(dst) then
      return deny("git-delete-branch", "git push --delete would delete the protected branch " .. dst)
    end
  end
  for _, sp in ipairs(specs) do
    local dst = re.gsub(sp, "^\\+", "")
    if force and (dst == "HEAD" or dst == "@") then
      return deny("git-force-push", "git push --force of HEAD may rewrite a protected branch; name the branch or use --force-with-lease")
    end
    -- $(git branch --show-current), $BRANCH: a branch the line does not name
    if force and re.find(dst, [[\$|`]]) then
      return deny("git-force-push", "git push --force of a branch a command or variable names may rewrite a protected branch; name the branch or use --force-with-lease")
    end
  end
  if force and (#specs == 0 or all) then
    return deny("git-force-push", "git push --force without an explicit branch may rewrite a protected branch; name the branch or use --force-with-lease")
  end
end

GIT.reset = function(a)
  for _, x in ipairs(a) do
    if x == "--hard" or x == "--merge" then
      return deny("git-discard", "git reset " .. x .. " would discard uncommitted work")
    end
  end
end

GIT.clean = function(a)
  -- (an and/or expression is one value: build the list, do not unpack
  -- it into a constructor that way)
  local words = { "clean" }
  for _, x in ipairs(a) do
    words[#words + 1] = x
  end
  local f = parse_flags(words, 2, "e")
  if f.s.n or f.l["dry-run"] or f.s.i or f.l.interactive then
    return nil
  end
  if f.s.f or f.l.force then
    return deny("git-discard", "git clean -f would delete untracked files")
  end
end

GIT.checkout = function(a)
  local force = false
  local paths = false
  for _, x in ipairs(a) do
    if x == "-f" or x == "--force" then
      force = true
    elseif x == "--" then
      paths = true
    elseif whole_tree(x) then
      return deny("git-discard", "git checkout " .. x .. " would discard every uncommitted change")
    end
  end
  if force then
    return deny("git-discard", "git checkout --force would discard uncommitted changes")
  end
  local _ = paths
end

GIT.restore = function(a)
  local staged, worktree, whole = false, false, false
  for _, x in ipairs(a) do
    if x == "--staged" or x == "-S" then
      staged = true
    elseif x == "--worktree" or x == "-W" then
      worktree = true
    elseif whole_tree(x) then
      whole = true
    end
  end
  if whole and (worktree or not staged) then
    return deny("git-discard", "git restore . would discard every uncommitted change")
  end
end

GIT.stash = function(a)
  if a[1] == "clear" then
    return deny("git-discard", "git stash clear would delete every stash")
  end
end

GIT.branch = function(a)
  local del = false
  for _, x in ipairs(a) do
    if x == "-D" or x == "--delete" or x == "-d" then
      del = true
    elseif del and branch_protected(x) then
      return deny("git-delete-branch", "git branch -D would delete the protected branch " .. x)
    end
  end
end

GIT["filter-branch"] = function() return deny("git-rewrite", "git filter-branch would rewrite history") end
GIT["filter-repo"] = function() return deny("git-rewrite", "git filter-repo would rewrite history") end
GIT.reflog = function(a)
  if a[1] == "expire" or a[1] == "delete" then
    return deny("git-rewrite", "git reflog " .. a[1] .. " would drop the safety net of history")
  end
end
GIT.gc = function(a)
  for _, x in ipairs(a) do
    if x == "--prune=now" or x == "--prune=all" then
      return deny("git-rewrite", "git gc --prune=now would delete unreachable commits")
    end
  end
end
GIT["update-ref"] = function(a)
  for k, x in ipairs(a) do
    if x == "-d" and branch_protected(a[k + 1]) then
      return deny("git-delete-branch", "git update-ref -d would delete a protected branch")
    end
  end
end
GIT.rm = function(a)
  local rec, whole = false, false
  for _, x in ipairs(a) do
    if x == "-r" or x == "-rf" or x == "-fr" or x == "-r" then
      rec = true
    elseif whole_tree(x) then
      whole = true
    end
  end
  local cached = false
  for _, x in ipairs(a) do
    if x == "--cached" then
      cached = true
    end
  end
  if rec and whole and not cached then
    return deny("git-discard", "git rm -r . would delete every tracked file")
  end
end

H.git = function(w)
  local i = 2
  while i <= #w and string.sub(w[i], 1, 1) == "-" do
    if GIT_GLOBAL_TAKES[w[i]] then
      i = i + 1
    end
    i = i + 1
  end
  local sub = w[i]
  local fn = sub and GIT[sub]
  if fn == nil then
    return nil
  end
  local rest = {}
  for k = i + 1, #w do
    rest[#rest + 1] = w[k]
  end
  return fn(rest)
end

-- Databases and cloud resources.

local SQL = require("monad.sql")

local function sql_check(client, sql, runs_text)
  if SQL.destructive(sql, runs_text) then
    return deny("drop-database", client .. " would run a destructive statement (DROP, TRUNCATE, or a DELETE or UPDATE of every row)")
  end
end

H.dropdb = function(w)
  if only_info(w) then
    return nil
  end
  return deny("drop-database", "dropdb would drop a database")
end

-- SQLC are the SQL clients: the short options that take a value, those of
-- them and the long ones that hold SQL, and the first operand that does.
local SQLC = {
  psql = { takes = "cdfhpUvPoLTF", sql = "c", long = { command = true } },
  mysql = { takes = "eDhPuSo", sql = "e", long = { execute = true } },
  sqlite3 = { takes = "", sql = "", long = { cmd = true }, positional = 2 },
  ["clickhouse-client"] = { takes = "qhdu", sql = "q", long = { query = true } },
  cqlsh = { takes = "eku", sql = "e", long = { execute = true } },
  mongosh = { takes = "u", sql = "", long = { eval = true } },
  duckdb = { takes = "c", sql = "c", long = {}, positional = 2 },
  sqlcmd = { takes = "SUPdQqiovHlsctwWaAKkNy", sql = "Qq", long = { query = true } },
  snowsql = { takes = "qfadswurco", sql = "q", long = { query = true } },
  usql = { takes = "cfo", sql = "c", long = { command = true } },
  vsql = { takes = "cdfhpUvPoF", sql = "c", long = { command = true } },
  mycli = { takes = "ehPuSD", sql = "e", long = { execute = true } },
  pgcli = { takes = "hpUdW", sql = "", long = {} },
  beeline = { takes = "eunpfd", sql = "e", long = {} },
  trino = { takes = "", sql = "", long = { execute = true } },
  bq = { takes = "", sql = "", long = {}, positional = 2 },
}
SQLC.presto, SQLC.hive, SQLC["spark-sql"] = SQLC.trino, SQLC.beeline, SQLC.beeline
SQLC.mariadb, SQLC.sqlite, SQLC.mongo = SQLC.mysql, SQLC.sqlite3, SQLC.mongosh
-- cockroach sql (the words after "sql")
SQLC.cockroach = { takes = "eud", sql = "e", long = { execute = true } }

-- sql_texts returns the SQL a client is given on its command line: every
-- value of its SQL options (psql -c A -c B), then its SQL operands.
local function sql_texts(spec, w)
  local f = parse_flags(w, 2, spec.takes, spec.long)
  local out = {}
  for c in string.gmatch(spec.sql, ".") do
    for _, v in ipairs(f.all[c] or {}) do
      out[#out + 1] = v
    end
  end
  for l in pairs(spec.long) do
    for _, v in ipairs(f.all[l] or {}) do
      out[#out + 1] = v
    end
  end
  if spec.positional then
    for k = spec.positional, #f.args do
      out[#out + 1] = f.args[k]
    end
  end
  return out
end

local function sql_client(name)
  local spec = SQLC[name]
  return function(w, ctx)
    local texts = sql_texts(spec, w)
    if ctx.stdin_text then
      texts[#texts + 1] = ctx.stdin_text
    end
    local runs_text = false
    for _, t in ipairs(texts) do
      runs_text = runs_text or SQL.runs_text(t)
    end
    for _, t in ipairs(texts) do
      local r, d = sql_check(name, t, runs_text)
      if r then
        return r, d
      end
    end
  end
end

-- generated_sql says whether the stages before a SQL client are a SQL
-- client whose query builds destructive statements as text (psql -Atc
-- "SELECT 'DROP TABLE ' || t ..." | psql): the client runs them.
local function generated_sql(upstream)
  for _, w in ipairs(upstream) do
    local eff = unwrap(w)
    local spec = SQLC[basename(eff[1])]
    if spec then
      for _, t in ipairs(sql_texts(spec, eff)) do
        if SQL.mentions(t) then
          return true
        end
      end
    end
  end
  return false
end

for name in pairs(SQLC) do
  H[name] = sql_client(name)
end
H.cockroach = function(w, ctx)
  if w[2] == "sql" then
    return sql_client("cockroach")(w, ctx)
  end
end
H.mysqladmin = function(w)
  for k = 2, #w do
    if string.lower(w[k]) == "drop" then
      return deny("drop-database", "mysqladmin drop would drop a database")
    end
  end
end
H["redis-cli"] = function(w)
  for k = 2, #w do
    local x = string.lower(w[k])
    if x == "flushall" or x == "flushdb" then
      return deny("drop-database", "redis-cli " .. x .. " would delete every key")
    end
  end
end
H["valkey-cli"] = H["redis-cli"]

local KUBE_BIG = {
  ns = true, namespace = true, namespaces = true, node = true, nodes = true, no = true,
  pv = true, persistentvolume = true, persistentvolumes = true, crd = true, crds = true,
  customresourcedefinition = true, customresourcedefinitions = true, all = true,
  pvc = false, cluster = true, clusters = true,
}

-- KUBE_GLOBAL_TAKES are the options of kubectl and oc that take a value
-- (the next word) and may come before the subcommand.
local KUBE_GLOBAL_TAKES = {}
for _, o in ipairs({ "-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-s", "--server", "--user",
  "--token", "--as", "--as-group", "--certificate-authority", "--client-certificate", "--client-key",
  "--request-timeout", "-v", "--v", "--cache-dir", "--tls-server-name" }) do
  KUBE_GLOBAL_TAKES[o] = true
end

local function kube(name)
  return function(w)
    -- the subcommand is the first word that is not an option or the
    -- value of one (kubectl auth can-i delete ns asks, it deletes nothing)
    local d, k = nil, 2
    while k <= #w do
      local x = w[k]
      if string.sub(x, 1, 1) ~= "-" then
        if x == "delete" then
          d = k
        end
        break
      end
      if KUBE_GLOBAL_TAKES[x] then
        k = k + 1
      end
      k = k + 1
    end
    if d == nil then
      return nil
    end
    local f = parse_flags(w, d, "nlfoc")
    -- --dry-run (=client, =server) deletes nothing; --dry-run=none does
    local dry = f.l["dry-run"]
    if dry ~= nil and dry ~= "none" then
      return nil
    end
    if f.l.all or f.s.A or f.l["all-namespaces"] then
      return deny("delete-cluster", name .. " delete --all would delete every resource of a kind")
    end
    for k = 2, #f.args do
      -- KIND, KIND,KIND or KIND/NAME
      local kinds = string.match(string.lower(f.args[k]), "^[^/]*")
      for kind in string.gmatch(kinds, "[^,]+") do
        if KUBE_BIG[kind] then
          return deny("delete-cluster", name .. " delete " .. kind .. " would delete a namespace, node or volume with everything in it")
        end
      end
    end
  end
end
H.kubectl = kube("kubectl")
H.oc = kube("oc")
H.k = H.kubectl

-- IAC_READ are the subcommands of infrastructure tools that change
-- nothing (a plan, even a destroy plan, is a plan).
local IAC_READ = {
  plan = true, show = true, graph = true, validate = true, fmt = true, output = true,
  providers = true, version = true, init = true, preview = true, diff = true, synth = true,
}

local function iac(name)
  return function(w, ctx)
    if only_info(w) then
      return nil
    end
    local sub, subk = nil, nil
    for k = 2, #w do
      if string.sub(w[k], 1, 1) ~= "-" then
        sub, subk = w[k], k
        break
      end
    end
    if sub and IAC_READ[sub] then
      -- terraform plan -destroy -out=FILE: applying FILE destroys
      local destroy, out = false, nil
      for k = subk + 1, #w do
        if w[k] == "-destroy" or w[k] == "--destroy" then
          destroy = true
        end
        out = string.match(w[k], "^%-%-?out=(.+)$") or ((w[k] == "-out" or w[k] == "--out") and w[k + 1]) or out
      end
      if destroy and out then
        ctx.destroy_plans = ctx.destroy_plans or {}
        ctx.destroy_plans[out] = true
      end
      return nil
    end
    for k = 2, #w do
      local x = w[k]
      if x == "destroy" or x == "-destroy" or x == "--destroy" or x == "destroy-all" then
        return deny("destroy-infra", name .. " destroy would tear down the managed infrastructure")
      end
      if sub == "apply" and k > subk and ctx.destroy_plans and ctx.destroy_plans[x] then
        return deny("destroy-infra", name .. " apply of a destroy plan would tear down the managed infrastructure")
      end
    end
  end
end
H.terraform = iac("terraform")
H.tofu = iac("tofu")
H.terragrunt = iac("terragrunt")
H.pulumi = iac("pulumi")
H.cdk = iac("cdk")
H.cdktf = iac("cdktf")
H.sst = function(w)
  if w[2] == "remove" then
    return deny("destroy-infra", "sst remove would tear down the managed infrastructure")
  end
end

H.aws = function(w)
  local f = parse_flags(w, 2, "")
  local svc, op = f.args[1], f.args[2]
  if svc == nil or op == nil then
    return nil
  end
  -- --dry-run (ec2 and others) and --dryrun (s3) check permissions and
  -- change nothing; help (or --help) prints the manual
  if f.l["dry-run"] or f.l.dryrun or f.l.help or f.args[#f.args] == "help" then
    return nil
  end
  -- options that take a value were counted as operands: find the operation
  if svc == "s3" then
    if op == "rb" then
      return deny("destroy-cloud", "aws s3 rb would delete a bucket")
    end
    -- --exclude '*' --include PATTERN deletes only what PATTERN matches
    local excl, incl = false, false
    for k = 2, #w do
      excl = excl or (w[k] == "--exclude" and w[k + 1] == "*") or w[k] == "--exclude=*"
      incl = incl or w[k] == "--include" or string.sub(w[k], 1, 10) == "--include="
    end
    local narrowed = excl and incl
    if op == "rm" and f.l.recursive and not narrowed then
      return deny("destroy-cloud", "aws s3 rm --recursive would delete every object under a prefix")
    end
    return nil
  end
  if re.match(op, "^(terminate-|purge-)") then
    return deny("destroy-cloud", "aws " .. svc .. " " .. op .. " would destroy cloud resources")
  end
  if re.match(op, "^delete-") and not re.match(op, "^delete-(object|objects|tags|tag|message|message-batch|alarms|marker)$") then
    return deny("destroy-cloud", "aws " .. svc .. " " .. op .. " would delete cloud resources")
  end
end

local function positional_delete(name)
  return function(w)
    local f = parse_flags(w, 2, "")
    if f.l.help or f.l["dry-run"] then
      return nil
    end
    for _, x in ipairs(f.args) do
      if x == "delete" or x == "destroy" or string.sub(x, 1, 7) == "delete-" then
        return deny("destroy-cloud", name .. " " .. x .. " would delete cloud resources")
      end
    end
  end
end
local gcloud_delete = positional_delete("gcloud")
H.gcloud = function(w, ctx)
  -- gcloud compute ssh VM --command CMD runs CMD on the VM
  for k = 2, #w do
    local v = string.match(w[k], "^%-%-command=(.*)$")
    if w[k] == "--command" then
      v = w[k + 1]
    end
    if v then
      local rule, detail = check_line(v, ctx.depth + 1)
      if rule then
        return rule, detail
      end
    end
  end
  return gcloud_delete(w, ctx)
end
H.az = positional_delete("az")
H.doctl = positional_delete("doctl")
H.gsutil = function(w)
  local f = parse_flags(w, 2, "ohp")
  if f.args[1] == "rb" then
    return deny("destroy-cloud", "gsutil rb would delete a bucket")
  end
  if f.args[1] == "rm" then
    for k = 2, #w do
      if w[k] == "-r" or w[k] == "-R" or w[k] == "-a" or w[k] == "-rf" then
        return deny("destroy-cloud", "gsutil rm -r would delete every object under a prefix")
      end
    end
  end
end
H.heroku = function(w)
  if only_info(w) then
    return nil -- heroku apps:destroy --help prints the manual
  end
  if re.match(w[2] or "", "^(apps:destroy|destroy|pg:reset|pg:killall)$") then
    return deny("destroy-cloud", "heroku " .. w[2] .. " would destroy an app or its database")
  end
end
H.fly = function(w)
  if only_info(w) then
    return nil
  end
  for k = 2, #w do
    if w[k] == "destroy" then
      return deny("destroy-cloud", "fly destroy would delete an app or machine")
    end
  end
end
H.flyctl = H.fly
H.firebase = function(w)
  if only_info(w) then
    return nil
  end
  if re.match(w[2] or "", "^(projects:delete|firestore:delete|database:remove|hosting:disable)$") then
    for k = 3, #w do
      if w[k] == "--all-collections" or w[k] == "-r" or w[k] == "--recursive" or w[2] ~= "firestore:delete" then
        return deny("destroy-cloud", "firebase " .. w[2] .. " would delete data")
      end
    end
    if w[2] ~= "firestore:delete" then
      return deny("destroy-cloud", "firebase " .. w[2] .. " would delete data")
    end
  end
end

-- skip_options returns the index of the first operand of w from i on: it
-- passes the options (to "--", which it skips too), calling on(option,
-- next word) for each, which returns how many more words the option takes.
local function skip_options(w, i, on)
  while i <= #w do
    local a = w[i]
    if a == "--" then
      return i + 1
    end
    if string.sub(a, 1, 1) ~= "-" then
      return i
    end
    i = i + 1 + on(a, w[i + 1])
  end
  return i
end

-- RUN_TAKES are the options of docker/podman run that take a value.
local RUN_TAKES = {}
for _, o in ipairs({
  "-v", "--volume", "--mount", "-w", "--workdir", "-e", "--env", "--env-file", "--name",
  "-p", "--publish", "--network", "--net", "-u", "--user", "--entrypoint", "-l", "--label",
  "--platform", "--pull", "-h", "--hostname", "--add-host", "--cpus", "-m", "--memory",
  "--device", "--cap-add", "--cap-drop", "--security-opt", "--tmpfs", "--ulimit", "--restart",
  "--log-driver", "--log-opt", "-a", "--attach", "--dns", "--gpus", "--ipc", "--pid",
  "--runtime", "--shm-size", "--stop-signal", "--stop-timeout", "--volumes-from", "--cidfile",
  "--ip", "--mac-address", "--label-file", "--expose", "--group-add", "--health-cmd",
  "--userns", "--uts", "--cgroupns", "--memory-swap", "--cpu-shares", "-c", "--cpuset-cpus",
}) do
  RUN_TAKES[o] = true
end

-- mount_source returns the host path of a bind mount's source as written
-- (absolute, ~, $HOME, $PWD, . or ./x), or nil for a named volume.
local function mount_source(src)
  local c = string.sub(src, 1, 1)
  if c == "/" or c == "~" or c == "$" or c == "." then
    return src
  end
  return nil
end

-- container_run checks the command of docker run as the host sees it: its
-- paths inside bind mounts (-v /:/host, --mount type=bind,...) are the
-- host's, the others the container's own (see MAPS).
container_run = function(name, w, ctx)
  local maps = { workdir = "/", list = {} }
  local entry = nil
  local i = 2
  while i <= #w and w[i] ~= "run" do
    i = i + 1
  end
  i = i + 1
  local function take(opt, val)
    if opt == "-v" or opt == "--volume" then
      local src, dst = string.match(val, "^([^:]+):([^:]+)")
      if src and mount_source(src) then
        maps.list[#maps.list + 1] = { norm(dst) or clean(dst), src }
      end
    elseif opt == "--mount" then
      local src = string.match(val, "[,^]?src=([^,]+)") or string.match(val, "source=([^,]+)")
      local dst = string.match(val, "dst=([^,]+)") or string.match(val, "target=([^,]+)") or string.match(val, "destination=([^,]+)")
      if src and dst and not string.find(val, "type=volume", 1, true) and mount_source(src) then
        maps.list[#maps.list + 1] = { norm(dst) or clean(dst), src }
      end
    elseif opt == "-w" or opt == "--workdir" then
      maps.workdir = val
    elseif opt == "--entrypoint" then
      entry = val
    end
  end
  i = skip_options(w, i, function(a, nxt)
    local opt, val = string.match(a, "^(%-%-[%w-]+)=(.*)$")
    if opt then
      take(opt, val)
    elseif RUN_TAKES[a] then
      take(a, nxt or "")
      return 1
    elseif string.match(a, "^%-[vwe].+") and not string.match(a, "^%-%-") then
      take(string.sub(a, 1, 2), string.sub(a, 3))
    end
    return 0
  end)
  -- w[i] is the image
  local cmd = {}
  if entry then
    cmd[1] = entry
  end
  for k = i + 1, #w do
    cmd[#cmd + 1] = w[k]
  end
  if #cmd == 0 then
    return nil
  end
  table.sort(maps.list, function(x, y) return string.len(x[1]) > string.len(y[1]) end)
  -- nsenter into the host's namespaces (--pid=host ... nsenter -t 1): the host
  for k = 1, #cmd do
    if basename(cmd[k]) == "nsenter" then
      local rule, detail = check_argv(cmd, ctx)
      if rule then
        return rule, name .. " run: " .. detail
      end
      return nil
    end
  end
  -- chroot DIR inside the container: DIR becomes the root
  for k = 1, #cmd - 1 do
    if basename(cmd[k]) == "chroot" then
      local j = k + 1
      while cmd[j] and string.sub(cmd[j], 1, 1) == "-" do
        j = j + 1
      end
      local saved = MAPS
      MAPS = maps
      local root = cmd[j] and host_path(norm(cmd[j]) or "/")
      MAPS = saved
      if root then
        maps = { workdir = "/", list = { { "/", root } } }
      else
        maps = { workdir = "/", list = {} }
      end
      break
    end
  end
  local saved = MAPS
  MAPS = maps
  local rule, detail = check_argv(cmd, ctx)
  MAPS = saved
  if rule then
    return rule, name .. " run: " .. detail
  end
end

-- TARGET_OPTS are the options of docker exec and compose exec|run that take
-- a value.
local TARGET_OPTS = "^-(e|u|w|-env|-user|-workdir|-env-file|-entrypoint|-name|p|-publish|v|-volume|l|-label)$"

-- run_in_target checks the command of VERB [options] TARGET CMD... (docker
-- exec CONTAINER, compose exec SERVICE): CMD runs in the target.
local function run_in_target(w, verb, ctx)
  local i = 2
  while i <= #w and w[i] ~= verb do
    i = i + 1
  end
  i = i + 1
  while i <= #w and string.sub(w[i], 1, 1) == "-" do
    if re.match(w[i], TARGET_OPTS) then
      i = i + 1
    end
    i = i + 1
  end
  local cmd = {}
  for k = i + 1, #w do
    cmd[#cmd + 1] = w[k]
  end
  if #cmd > 0 then
    return check_argv(cmd, ctx)
  end
  return nil
end

local function docker_like(name)
  return function(w, ctx)
    local f = parse_flags(w, 2, "HcflpuwTe")
    local a = f.args
    if a[1] == "exec" then
      -- docker exec [opts] CONTAINER CMD...
      return run_in_target(w, "exec", ctx)
    end
    if a[1] == "run" or (a[1] == "container" and a[2] == "run") then
      return container_run(name, w, ctx)
    end
    if a[1] == "volume" and (a[2] == "rm" or a[2] == "prune" or a[2] == "remove") then
      return deny("drop-database", name .. " volume " .. a[2] .. " would delete stored data")
    end
    if a[1] == "system" and a[2] == "prune" and f.l.volumes then
      return deny("drop-database", name .. " system prune --volumes would delete stored data")
    end
    local compose = a[1] == "compose" or name == "docker-compose"
    if compose then
      local verb = name == "docker-compose" and a[1] or a[2]
      if verb == "exec" or verb == "run" then
        -- compose exec|run [options] SERVICE CMD...: CMD runs in the service
        return run_in_target(w, verb, ctx)
      end
      if verb == "down" and (f.s.v or f.l.volumes) then
        return deny("drop-database", "compose down -v would delete the project's volumes")
      end
    end
  end
end
H.docker = docker_like("docker")
H.podman = docker_like("podman")
H["docker-compose"] = docker_like("docker-compose")

local function task_runner(name)
  return function(w)
    for k = 2, #w do
      if re.match(w[k], "^(db:drop|db:reset|db:purge|db:drop:all|db:schema:load|db:migrate:reset|ecto\\.drop|ecto\\.reset)$") then
        return deny("drop-database", name .. " " .. w[k] .. " would drop a database")
      end
    end
  end
end
H.rails = task_runner("rails")
H.rake = task_runner("rake")
H.bin = nil
H.mix = task_runner("mix")
H.sequelize = task_runner("sequelize")
H.prisma = function(w)
  local s = join(w, 2)
  if re.find(s, [[migrate\s+reset|db\s+push\b.*--force-reset]]) then
    return deny("drop-database", "prisma would reset the database")
  end
end

-- Shells, remote and nested commands.

local SHELLS = { sh = true, bash = true, zsh = true, dash = true, ksh = true, mksh = true, fish = true, ash = true, csh = true, tcsh = true, yash = true, pwsh = false }

-- listless_for rewrites the loops of line that have no list (for NAME;
-- do, for NAME do), which run over the positional parameters, as for NAME
-- in "$@".
local function listless_for(line)
  if string.find(line, "for", 1, true) then
    line = re.gsub(line, [[(^|[\s;&|({])for\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s*;\s*|\s+)do\b]], [[${1}for ${2} in "$@"; do]])
  end
  return line
end

-- bind_args puts args in for the positional parameters of a script's
-- text ($1..$9, ${N}, $@, $*, and a loop without a list), and name for
-- $0.
local function bind_args(script, name, args)
  local all = string.gsub(table.concat(args, " "), "%$", "$$")
  script = re.gsub(listless_for(script), [["\$\{?[@*]\}?"|\$\{?[@*]\}?]], all)
  return (string.gsub(script, "%$%{?([0-9])%}?", function(n)
    if n == "0" then
      return name
    end
    return args[tonumber(n)] or ""
  end))
end

-- ECHOERS are the programs that print the paths they are given (find its
-- start points, ls -d its operands, cd DIR && pwd the folder, echo and
-- printf their words, realpath, readlink, basename, stat, du).
local ECHOERS = { find = true, ls = true, echo = true, printf = true, realpath = true, readlink = true, basename = true,
  stat = true, du = true, cd = true, pushd = true }

-- printed_by says why the word raw names a critical path (as critical
-- says) through a substitution the line cannot resolve (it runs another
-- program than those that only print, see monad.expand): when a program
-- of the substitution prints the paths it is given (ECHOERS) and one of
-- them, put in for the substitution, is critical (rm -rf $(find /
-- -maxdepth 0), rm -rf $(ls -d ~), rm -rf $(echo / | tr -d x)). find
-- narrowed by a name test or -mindepth, ls without -d or a glob, and cd
-- without pwd print no path they were given; any other program (mktemp,
-- git ls-files, npm root, pgrep) prints paths the pack cannot know, which
-- are left alone. Bounded: four substitutions a word, eight paths each,
-- the other substitutions read as one segment.
printed_by = function(raw, rec, mode)
  local from, seen = 1, 0
  while seen < 4 do
    local a, b = string.find(raw, "%$%b()", from)
    local ta, tb = string.find(raw, "`[^`]*`", from)
    if ta and (not a or ta < a) then
      a, b = ta, tb
    end
    if not a then
      return nil
    end
    seen = seen + 1
    from = b + 1
    local body = string.sub(raw, a, b)
    body = string.sub(body, 1, 1) == "`" and string.sub(body, 2, -2) or string.sub(body, 3, -2)
    local ok, cmds = pcall(commands, body)
    if ok and type(cmds) == "table" then
      local pwd = false
      for _, c in ipairs(cmds) do
        local n = basename((c.words or {})[1])
        pwd = pwd or n == "pwd" or n == "dirs"
      end
      for _, c in ipairs(cmds) do
        local w = unwrap(c.words or {})
        local name = basename(w[1])
        if ECHOERS[name] and (c.depth or 0) == 0 and ((name ~= "cd" and name ~= "pushd") or pwd) then
          local ops, narrowed, listed = {}, false, name ~= "ls"
          for k = 2, #w do
            local x = w[k]
            if name == "find" and (#ops > 0 or k > 2) and re.match(x, "^[-(!]") then
              -- the expression: a name test or -mindepth narrows what find prints
              for j = k, #w - 1 do
                local t = string.match(w[j], "^%-(%a+)$")
                if (t and NAME_TESTS[t] and not TRIVIAL_NAME[w[j + 1]]) or (t == "mindepth" and (tonumber(w[j + 1]) or 0) >= 1) then
                  narrowed = true
                end
              end
              break
            elseif string.sub(x, 1, 1) == "-" and x ~= "-" then
              listed = listed or re.match(x, "^(-[A-Za-z]*d[A-Za-z]*|--directory)$")
            elseif #ops < 8 and not (name == "printf" and k == 2) then
              ops[#ops + 1] = x
              listed = listed or string.find(x, "*", 1, true) ~= nil
            end
          end
          if listed and not narrowed then
            local before = re.gsub(string.sub(raw, 1, a - 1), [[\$\([^()]*\)|`[^`]*`]], "_")
            local after = re.gsub(string.sub(raw, b + 1), [[\$\([^()]*\)|`[^`]*`]], "_")
            for _, op in ipairs(ops) do
              local why = critical(before .. op .. after, rec, mode)
              if why then
                return "what " .. name .. " prints there, which may be " .. why
              end
            end
          end
        end
      end
    end
  end
  return nil
end

-- SUBST bounds the checks of an sh -c script that shifts through its
-- arguments, one per argument (shifts), and holds the functions below
-- that are fields (the chunk is near Lua's 200 locals). The resolution of
-- values is monad.expand's, bounded by its BOUNDS.
local SUBST = { shifts = 64 }

local function shell_c(w, ctx)
  for k = 2, #w do
    local a = w[k]
    if a == "--" then
      return nil
    end
    if string.sub(a, 1, 1) == "-" and string.sub(a, 2, 2) ~= "-" and string.find(a, "c", 2, true) then
      if w[k + 1] then
        -- sh -c SCRIPT NAME ARGS...: SCRIPT's $1.. are ARGS (find -exec sh
        -- -c 'rm -rf "$1"' _ {} \;)
        local script = w[k + 1]
        if w[k + 2] and string.find(script, "$", 1, true) then
          local args = {}
          for j = k + 3, #w do
            args[#args + 1] = w[j]
          end
          -- a script that shifts (while [ $# -gt 0 ]; do rm -rf "$1";
          -- shift; done) runs with each argument as $1: checked once per
          -- shift, up to SUBST.shifts (past them, denied when it names a
          -- program the pack checks)
          if #args > 1 and string.find(script, "shift", 1, true) and re.find(script, [=[\$\{?[1-9]]=]) then
            if #args > SUBST.shifts and names_rule_program(script) then
              return deny("too-complex", "the script shifts through more arguments than the pack examines (" .. SUBST.shifts .. ")")
            end
            for j = 2, math.min(#args, SUBST.shifts) do
              local rest = {}
              for m = j, #args do
                rest[#rest + 1] = args[m]
              end
              local rule, detail = check_line(bind_args(script, w[k + 2], rest), ctx.depth + 1)
              if rule then
                return rule, detail
              end
            end
          end
          script = bind_args(script, w[k + 2], args)
        end
        return check_line(script, ctx.depth + 1)
      end
      return nil
    end
    if string.sub(a, 1, 1) ~= "-" and string.sub(a, 1, 1) ~= "+" then
      return nil -- a script file
    end
  end
end
for n in pairs(SHELLS) do
  H[n] = shell_c
end

-- PowerShell and cmd.exe (monad.pwsh): a line of a PowerShell tool, a
-- POSIX line that names what only PowerShell runs, and powershell, pwsh
-- and cmd run from a POSIX line are read by the PowerShell parser; the
-- cmdlets and Windows programs are checked by monad.pwsh, and the
-- programs the rules know (git, kubectl, terraform, psql, ...) by the
-- same rules as in a POSIX line. A line beyond the parser's bounds is
-- denied when it names a program the pack checks.
local PW = require("monad.pwsh")
check_pwsh = function(line, depth, dialect)
  local ok, cmds = pcall(PW.commands, line, dialect or "powershell")
  if not ok then
    if names_rule_program(line) or PW.TRIGGER:test(line) then
      return deny("too-complex", "the PowerShell line is beyond what the pack reads, and names a program it checks")
    end
    return nil
  end
  local rule, detail = PW.destructive(cmds, line)
  if rule then
    return deny(rule, detail)
  end
  local ctx = { depth = depth, vars = {}, aliases = {}, funcs = {}, arrays = {}, budget = { n = 0 }, bare = {} }
  for _, c in ipairs(cmds) do
    local w = c.words
    if c.expr or w[1] == nil or w[1] == "powershell" or w[1] == "pwsh" or w[1] == "cmd" then
      w = nil
    elseif c.words[1] == "Invoke-Sqlcmd" then
      -- SQL Server's cmdlet: the rules of its client, sqlcmd
      w = { "sqlcmd", "-S", PW.param(c, "serverinstance", 2, true) or "", "-d", PW.param(c, "database", 2, true) or "", "-Q", PW.param(c, "query", 1, true) or "" }
    elseif c.cmdlet then
      -- an alias that is a program of its own in PowerShell on Linux and
      -- macOS (rm, cp, mv, kill, curl): that program's rules too
      local n = string.lower(c.written)
      w = H[n] and { n, unpack(c.words, 2) } or nil
    end
    if w then
      rule, detail = check_argv(w, ctx)
      if rule then
        return rule, detail
      end
    end
  end
  return nil
end

local function powershell(w, ctx)
  return check_pwsh(PW.quote(w), ctx.depth + 1)
end
H.pwsh, H.powershell, H["powershell.exe"], H["pwsh.exe"] = powershell, powershell, powershell, powershell
-- (cmd is not a name of H: ./cmd/x is a folder of most Go modules, and a
-- POSIX line that runs cmd is read as PowerShell, shell.likely)

H.eval = function(w, ctx)
  return check_line(join(w, 2), ctx.depth + 1)
end

-- command_option checks the command string of -c/--command (su,
-- runuser, script, vagrant ssh).
local function command_option(w, ctx)
  for k = 2, #w - 1 do
    if w[k] == "-c" or w[k] == "--command" then
      return check_line(w[k + 1], ctx.depth + 1)
    end
  end
end
H.su, H.runuser, H.script = command_option, command_option, command_option
H.watch = function(w, ctx)
  local f = parse_flags(w, 2, "ndq")
  if #f.args > 0 then
    return check_line(table.concat(f.args, " "), ctx.depth + 1)
  end
end

local SSH_TAKES = "BbcDEeFIiJLlmOoPpQRSWw"
H.ssh = function(w, ctx)
  local i = skip_options(w, 2, function(a)
    if string.len(a) == 2 and string.find(SSH_TAKES, string.sub(a, -1), 1, true) then
      return 1
    end
    return 0
  end)
  -- w[i] is the host
  local j = i + 1
  if w[j] == "--" then
    j = j + 1
  end
  if j <= #w then
    return check_line(join(w, j), ctx.depth + 1)
  end
end

-- kube_exec wraps a kubectl-like checker: exec ... -- CMD runs CMD in a
-- pod, checked as a command of its own.
local function kube_exec(delete)
  return function(w, ctx)
    for k = 2, #w do
      if w[k] == "exec" then
        for j = k + 1, #w do
          if w[j] == "--" then
            local cmd = {}
            for m = j + 1, #w do
              cmd[#cmd + 1] = w[m]
            end
            return check_argv(cmd, ctx)
          end
        end
        return nil
      end
    end
    return delete(w, ctx)
  end
end
H.kubectl = kube_exec(H.kubectl)
-- lxc|incus|multipass exec NAME -- CMD
local function no_delete() return nil end
H.lxc, H.incus, H.multipass = kube_exec(no_delete), kube_exec(no_delete), kube_exec(no_delete)

-- vagrant ssh -c CMD runs CMD in the machine
H.vagrant = command_option

-- ansible HOSTS -m shell|command|raw -a CMD (command is the default
-- module) runs CMD on every host
H.ansible = function(w, ctx)
  local module, args = "command", nil
  for k = 2, #w do
    local m = string.match(w[k], "^%-%-module%-name=(.+)$")
    if w[k] == "-m" or w[k] == "--module-name" then
      m = w[k + 1]
    end
    module = m or module
    local a = string.match(w[k], "^%-%-args=(.+)$")
    if w[k] == "-a" or w[k] == "--args" then
      a = w[k + 1]
    end
    args = a or args
  end
  if args and (module == "shell" or module == "command" or module == "raw" or module == "ansible.builtin.shell" or module == "ansible.builtin.command") then
    return check_line(args, ctx.depth + 1)
  end
end
H.oc = kube_exec(H.oc)
H.k = H.kubectl

-- One-line programs.

-- INTERP are the interpreters whose options run a program given on the
-- command line (the option letters that take it), by basename.
local INTERP = {
  python = "c", python2 = "c", python3 = "c", pypy = "c", pypy3 = "c",
  node = "ep", nodejs = "ep", bun = "e", perl = "eE", ruby = "e", php = "r",
  lua = "e", luajit = "e", r = "e", rscript = "e", osascript = "e",
}

-- INTERP_STOP are the options that take the rest of a cluster as their value.
local INTERP_STOP = { perl = "MmIxi0l", python = "mWXQ", node = "r", ruby = "rIEFlx", php = "dcz", lua = "l" }

-- HOME_EXPR are the expressions of one-line programs that stand for the
-- home directory (or a path in it), with what they are read as: a string
-- literal '~...', so that the path checks below see them.
local HOME_EXPR = {
  { [[(?i)(?:os\.path\.)?expanduser\(\s*['"]~([^'"]*)['"]\s*\)]], "'~${1}'" },
  { [[(?i)(?:pathlib\.)?Path\.home\(\)]], "'~'" },
  { [[(?:require\(\s*['"](?:node:)?os['"]\s*\)\.|\w+\.)?homedir\(\)]], "'~'" },
  { [[\$ENV\{\s*['"]?HOME['"]?\s*\}]], "'~'" },
  { [[ENV(?:\[\s*['"]HOME['"]\s*\]|\.fetch\(\s*['"]HOME['"]\s*\))]], "'~'" },
  { [[(?:os\.)?environ(?:\.get\(\s*['"]HOME['"][^)]*\)|\[\s*['"]HOME['"]\s*\])]], "'~'" },
  { [[(?:\w+\.)*getenv\(\s*['"]HOME['"]\s*\)]], "'~'" },
  { [[Dir\.home(?:\(\))?]], "'~'" },
  { [[(?:process|Bun)\.env(?:\.HOME\b|\[\s*['"]HOME['"]\s*\])]], "'~'" },
  { [[Deno\.env\.get\(\s*['"]HOME['"]\s*\)]], "'~'" },
  { [[(?:File\.expand_path|path\.expand|normalizePath)\(\s*['"]~([^'"]*)['"][^)]*\)]], "'~${1}'" },
}

-- LIST_CWD lists the working directory; LIST_FILTER picks some of what is
-- listed (a program that deletes only .pyc files is ordinary work).
local LIST_CWD = [[(?i)(listdir\(\s*(['"]\.?/?['"])?\s*\)|scandir\(\s*(['"]\./?['"])?\s*\)|Path\(\s*(['"]\.?/?['"])?\s*\)\.(iterdir|glob)|readdirsync\(\s*['"]\./?['"]|glob\(\s*['"]\*['"]|Dir\.(glob|children|entries)\(\s*['"](\.|\*)['"]|Dir\[\s*['"]\*['"])]]
local LIST_FILTER = [[(?i)(\bif\b|endswith|startswith|fnmatch|\.match\(|\.filter\(|=~|\.test\(|\.ext|suffix|\.include\?|glob\(\s*['"][^'"*]*\*[^'"]+['"])]]

-- CWD_EXPR are the expressions for the working directory, read as '.'.
local CWD_EXPR = [[(?:os\.getcwd\(\)|process\.cwd\(\)|Deno\.cwd\(\)|Dir\.pwd|\bgetcwd\(\)|Path\.cwd\(\))]]

-- home_literals returns code with the home expressions written as string
-- literals, whether there was one, and whether it names the working
-- directory (as '.', or listing it: os.listdir(), os.listdir('.')).
local function home_literals(code)
  local out, any = code, false
  for _, h in ipairs(HOME_EXPR) do
    local n
    out, n = re.gsub(out, h[1], h[2])
    if n > 0 then
      any = true
    end
  end
  local c
  out, c = re.gsub(out, CWD_EXPR, "'.'")
  return out, any, c > 0 or re.find(out, LIST_CWD) ~= nil
end

local DELETE_BARE = [=[(?i)\b(unlink|rmtree|remove_tree|rm_rf|rm_r)\s+(glob\s*)?["'(]]=]
local DELETE_CALL = [[(?i)\b(rmtree|rm_rf|rm_r|remove_tree|rmsync|rmdirsync|rimraf|removedirs|emptydirsync|removesync|remove_dir_all|rm|rmdir|unlink|unlinksync|remove|delete|deletesync)\s*\(]]
local EXEC_CALL = [[(?i)\b(system|popen|exec|execsync|execfilesync|spawn|spawnsync|check_output|check_call|call|run|getoutput|getstatusoutput|execl|execlp|execv|execvp|execve|passthru|shell_exec|proc_open|capture2|capture3|popen3|open3|execute|command)\s*(\(|\s['"])]]
-- DELETE_WORD, LIST_CALL: a program that lists the home directory and
-- deletes (for p in Path.home().iterdir(): rmtree(p)).
local DELETE_WORD = [[(?i)\b(rmtree|rm_rf|rm_r|remove_tree|rmsync|rmdirsync|rimraf|removedirs|removesync|remove_dir_all|rmdir|unlink|unlinksync|remove|delete|deletesync|rm|rm_f)\b]]
local LIST_CALL = [[(?i)(\b(iterdir|listdir|scandir|glob|rglob|readdirsync|readdir|walk|each_child|children|entries|list\.files|opendir)\s*\(|Dir\.(glob|children|entries|each_child|\[))]]
-- CODE_DECODE decodes text a program then runs (exec(b64decode(...))).
local CODE_DECODE = [[(?i)(b64decode|base64\.decode|decodebytes|a85decode|unhexlify|bytes\.fromhex|\batob\s*\(|buffer\.from\([^)]*['"](base64|hex)['"]|pack\(\s*['"][hH]\*|decode_base64|base64_decode|hex2bin|\.unpack1?\(\s*['"]m|base64\.(strict_)?decode64)]]

-- CODE_FETCH and CODE_EVAL: a program that downloads code and runs it
-- (exec(urlopen(...).read()), fetch(...).then(eval)).
local CODE_FETCH = [[(?i)(urlopen|urllib|requests\.(get|post)|httpx\.(get|post)|\bfetch\s*\(|https?\.(get|request)\s*\(|axios|\bgot\s*\(|net::http|uri\.open|open-uri|open\(\s*['"]https?://|file_get_contents\(\s*['"]https?://|lwp|http::tiny|\bget\s*\(\s*['"]https?://|curl_exec|\bcurl\b|\bwget\b|invoke-webrequest|downloadstring|webclient|socket\.http)]]
local CODE_EVAL = [[(?i)(\bexec\s*\(|\beval\b|\bnew\s+function\b|\bload(string)?\s*\(|instance_eval|class_eval|\brunpy\b|\bcompile\s*\(|vm\.run|\b(include|require)(_once)?\s*\(?\s*['"]https?:|\biex\b|invoke-expression|\bdofile\b)]]

-- MAX_CALLS bounds the calls of one program that are examined; a program
-- with more is denied rather than let through unexamined.
local MAX_CALLS = 64

local function too_many(lang)
  return deny("too-complex", lang .. " code has more calls than the pack examines (" .. MAX_CALLS .. ")")
end

-- quoted_strings returns the contents of the quoted strings of s, and
-- false when there are more than MAX_CALLS of them.
local function quoted_strings(s)
  local out = {}
  local pos = 1
  for _ = 1, MAX_CALLS do
    local a, b = re.find(s, [['[^']*'|"[^"]*"]], pos)
    if a == nil then
      return out, true
    end
    out[#out + 1] = string.sub(s, a + 1, b - 1)
    pos = b + 1
  end
  return out, re.find(s, [['[^']*'|"[^"]*"]], pos) == nil
end

-- call_args returns the text of a call's arguments: from just after the
-- opening parenthesis to the matching closing one (or the end).
local function call_args(code, from)
  local depth, i, n = 1, from, string.len(code)
  local q = nil
  while i <= n do
    local c = string.sub(code, i, i)
    if q then
      if c == "\\" then
        i = i + 1
      elseif c == q then
        q = nil
      end
    elseif c == "'" or c == '"' then
      q = c
    elseif c == "(" or c == "[" or c == "{" then
      depth = depth + 1
    elseif c == ")" or c == "]" or c == "}" then
      depth = depth - 1
      if depth == 0 then
        return string.sub(code, from, i - 1)
      end
    elseif c == ";" or c == "\n" then
      if depth <= 1 then
        return string.sub(code, from, i - 1)
      end
    end
    i = i + 1
  end
  return string.sub(code, from)
end

-- each_match calls fn(a, b) for every match of rx in code, in order, and
-- returns what fn returns first; past MAX_CALLS matches it returns the
-- too-complex denial.
local function each_match(lang, code, rx, fn)
  local pos = 1
  for _ = 1, MAX_CALLS do
    local a, b = re.find(code, rx, pos)
    if a == nil then
      return nil
    end
    local rule, detail = fn(a, b)
    if rule then
      return rule, detail
    end
    pos = b + 1
  end
  if re.find(code, rx, pos) then
    return too_many(lang)
  end
end

-- path_of joins the string literals of a call's arguments into the path
-- they most likely build (os.path.join('~', d), '~' + '/' + f).
local function path_of(strs)
  local parts = {}
  for _, x in ipairs(strs) do
    if x ~= "" then
      parts[#parts + 1] = x
    end
  end
  if #parts == 0 then
    return nil
  end
  return table.concat(parts, "/")
end

local function check_code(lang, code, ctx)
  if code == nil or code == "" then
    return nil
  end
  if re.find(code, [[(?i)(while\s*(\(\s*)?(1|true|True)\b[^\n]*fork|fork(\(\))?\s+while\s+(fork|1|true)\b|fork(\(\))?\s+until\s+0\b|fork\(\)\s*while|for\s*\(\s*;\s*;\s*\)\s*fork|loop\s*\{\s*fork)]]) then
    return deny("fork-bomb", lang .. " code would fork processes without bound")
  end
  if re.find(code, CODE_FETCH) and re.find(code, CODE_EVAL) then
    return deny("run-download", lang .. " code would run code it downloads, unseen")
  end
  if re.find(code, CODE_DECODE) and (re.find(code, CODE_EVAL) or re.find(code, EXEC_CALL)) then
    return deny("run-decoded", lang .. " code would run text it decodes (base64, hex), unseen")
  end
  -- getattr(OBJ, 'name') is OBJ.name (getattr(__import__('shutil'), 'rmtree')('/'))
  if string.find(code, "getattr", 1, true) then
    code = re.gsub(code, [=[\bgetattr\s*\(\s*((?:[^,()]|\([^()]*\))+?)\s*,\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\)]=], "${1}.${2}")
  end
  local hcode, home, cwd = home_literals(code)
  if cwd and re.find(hcode, DELETE_WORD) and re.find(hcode, LIST_CWD) and not re.find(hcode, LIST_FILTER) then
    local why = critical(".", true)
    if why then
      return deny("delete-critical", lang .. " code would delete the contents of " .. why)
    end
  end
  local xrule, xdetail = code_exfiltration(lang, hcode)
  if xrule then
    return xrule, xdetail
  end
  if home and re.find(hcode, DELETE_WORD) and re.find(hcode, LIST_CALL) then
    return deny("delete-critical", lang .. " code would delete the contents of the home directory")
  end
  local rule, detail = each_match(lang, hcode, DELETE_CALL, function(_, b)
    local strs, all = quoted_strings(call_args(hcode, b + 1))
    if not all then
      return too_many(lang)
    end
    local why = critical(path_of(strs), true)
    if why then
      return deny("delete-critical", lang .. " code would delete " .. why)
    end
  end)
  if rule then
    return rule, detail
  end
  rule, detail = each_match(lang, hcode, DELETE_BARE, function(_, b)
    local stmt = string.match(string.sub(hcode, b), "^[^;]*") or ""
    local strs, all = quoted_strings(stmt)
    if not all then
      return too_many(lang)
    end
    for _, str in ipairs(strs) do
      local why = critical(str, true)
      if why then
        return deny("delete-critical", lang .. " code would delete " .. why)
      end
    end
  end)
  if rule then
    return rule, detail
  end
  rule, detail = each_match(lang, hcode, EXEC_CALL, function(_, b)
    local open = string.sub(hcode, b, b)
    local args = call_args(hcode, open == "(" and b + 1 or b)
    local trimmed = re.gsub(args, [[^\s+]], "")
    local strs, all = quoted_strings(args)
    if not all then
      return too_many(lang)
    end
    if string.sub(trimmed, 1, 1) == "[" or (#strs > 1 and re.find(args, [[^\s*['"][^'"]*['"]\s*,]])) then
      if #strs > 0 then
        return check_argv(strs, ctx)
      end
    elseif strs[1] then
      -- a command line, maybe built by concatenation: "rm -rf " . '~'
      return check_line(table.concat(strs), ctx.depth + 1)
    end
  end)
  if rule then
    return rule, detail
  end
  if lang == "perl" then
    -- system qw(rm -rf /), exec qw/.../: an argument list
    rule, detail = each_match(lang, hcode, [=[\b(?:system|exec)\s*\(?\s*qw\s*(?:\([^)]*\)|\[[^\]]*\]|\{[^}]*\}|/[^/]*/|<[^>]*>)]=], function(a, b)
      local list = re.gsub(string.sub(hcode, a, b), [=[^.*?qw\s*.|.$]=], "")
      return check_argv(split(list), ctx)
    end)
    if rule then
      return rule, detail
    end
  end
  -- shell text inside the program: backticks, %x(), qx{} (perl, ruby,
  -- php), $`...` templates (zx, Bun), do shell script (AppleScript), exec
  -- (Tcl)
  local shells = nil
  if lang == "perl" or lang == "ruby" or lang == "php" then
    shells = [=[`[^`]+`|%x\([^)]*\)|qx\{[^}]*\}|qx\([^)]*\)]=]
  elseif lang == "node" or lang == "bun" or lang == "deno" then
    shells = [=[\$`[^`]+`]=]
  elseif lang == "osascript" then
    shells = [=[(?i)do shell script\s+"[^"]*"]=]
  elseif lang == "tcl" then
    shells = [=[\bexec\s+[^;\]\n]+]=]
  end
  if shells then
    rule, detail = each_match(lang, hcode, shells, function(a, b)
      local inner = string.sub(hcode, a, b)
      inner = re.gsub(inner, [=[^(`|%x\(|qx\{|qx\(|\$`|(?i)do shell script\s+"|exec\s+)|(`|\)|\}|")$]=], "")
      inner = re.gsub(inner, [[\$\{\s*'(~[^']*)'\s*\}]], "${1}")
      return check_line(inner, ctx.depth + 1)
    end)
    if rule then
      return rule, detail
    end
  end
  if lang == "tcl" then
    return each_match(lang, hcode, [[\bfile\s+delete\s+(?:-force\s+)?(?:--\s+)?\S+]], function(a, b)
      local target = re.gsub(string.sub(hcode, a, b), [[^.*\s]], "")
      local why = critical(re.gsub(target, [[^['"]|['"]$]], ""), true)
      if why then
        return deny("delete-critical", "tcl code would delete " .. why)
      end
    end)
  end
end

-- interp_lang returns the language of an interpreter's basename (python3.11
-- is python, nodejs node, tclsh8.6 tcl), or nil.
local function interp_lang(name)
  local base = re.gsub(name, [[[0-9.]+$]], "")
  if base == "python" or base == "pypy" then
    return "python"
  end
  if base == "nodejs" then
    return "node"
  end
  if base == "tclsh" or base == "wish" then
    return "tcl"
  end
  if base == "rscript" then
    return "r"
  end
  if INTERP[name] or INTERP[base] then
    return base
  end
  return nil
end

local function interp(w, ctx)
  local name = basename(w[1])
  local lang = interp_lang(name)
  local opts = lang and (INTERP[name] or INTERP[re.gsub(name, [[[0-9.]+$]], "")])
  if opts == nil then
    return nil
  end
  for k = 2, #w do
    local a = w[k]
    if a == "--eval" or a == "--print" or a == "--command" then
      return check_code(lang, w[k + 1], ctx)
    end
    if string.sub(a, 1, 7) == "--eval=" then
      return check_code(lang, string.sub(a, 8), ctx)
    end
    if string.sub(a, 1, 1) == "-" and string.sub(a, 2, 2) ~= "-" then
      -- a cluster such as -e, -pe, -lne, -c; -MModule, -Idir, -i.bak take the rest
      local j = 2
      while j <= string.len(a) do
        local c = string.sub(a, j, j)
        if string.find(INTERP_STOP[lang] or "", c, 1, true) then
          break
        end
        if string.find(opts, c, 1, true) then
          local rest = string.sub(a, j + 1)
          if rest ~= "" then
            return check_code(lang, rest, ctx)
          end
          return check_code(lang, w[k + 1], ctx)
        end
        j = j + 1
      end
    elseif string.sub(a, 1, 1) ~= "-" then
      return nil -- a script file
    end
  end
end
for n in pairs(INTERP) do
  H[n] = interp
end
H.deno = function(w, ctx)
  for k = 2, #w do
    if w[k] == "run" then
      -- deno run https://...: code downloaded and run unseen
      for j = k + 1, #w do
        if re.match(w[j], "^https?://") then
          return deny("run-download", "deno run of a URL would run downloaded code unseen")
        end
        if string.sub(w[j], 1, 1) ~= "-" then
          return nil
        end
      end
    end
    if w[k] == "eval" then
      for j = k + 1, #w do
        if string.sub(w[j], 1, 1) ~= "-" then
          return check_code("deno", w[j], ctx)
        end
      end
      return nil
    end
  end
end

-- awk runs commands from its program (system(), print | "cmd", "cmd" |
-- getline): when the program does, every string of it is checked as a
-- command line, since the command is usually built from them.
H.awk = function(w, ctx)
  local prog = nil
  local k = 2
  while k <= #w do
    local a = w[k]
    if a == "-f" or a == "--file" then
      return nil -- the program is in a file
    elseif a == "-e" or a == "--source" then
      prog = w[k + 1]
      break
    elseif a == "-F" or a == "-v" or a == "--assign" or a == "--field-separator" or a == "-i" or a == "--include" then
      k = k + 1
    elseif a == "--" then
      prog = w[k + 1]
      break
    elseif string.sub(a, 1, 1) ~= "-" then
      prog = a
      break
    end
    k = k + 1
  end
  if prog == nil or not re.find(prog, [[\bsystem\s*\(|\|\s*&?\s*"|"\s*\|\s*getline]]) then
    return nil
  end
  local strs, all = quoted_strings(prog)
  if not all then
    return too_many("awk")
  end
  for _, str in ipairs(strs) do
    local rule, detail = check_line(str, ctx.depth + 1)
    if rule then
      return rule, detail
    end
  end
end
H.gawk, H.mawk, H.nawk = H.awk, H.awk, H.awk

---------------------------------------------------------------------------
-- Exfiltration: the environment or credentials sent over the network
---------------------------------------------------------------------------

-- SENDERS are the programs that send what they read, or name, to another
-- host.
local SENDERS = {
  curl = true, wget = true, http = true, https = true, xh = true, nc = true, ncat = true,
  netcat = true, socat = true, telnet = true, ftp = true, lftp = true, sftp = true, scp = true,
  rsync = true, ssh = true, openssl = true, mail = true, mailx = true, sendmail = true,
  mutt = true, dig = true, nslookup = true, host = true, rclone = true, aws = true,
  gsutil = true, gh = true, smbclient = true,
}

-- SECRET_VAR names a variable that holds a secret ($GITHUB_TOKEN).
local SECRET_VAR = [[(?i)\$\{?[A-Za-z0-9_]*(key|token|secret|passw|pwd|credential|auth)[A-Za-z0-9_]*\b]]

-- secret_path says what credentials a word names (a file or a directory
-- that holds them), or nil.
local function secret_path(word)
  if type(word) ~= "string" or word == "" then
    return nil
  end
  local p = norm(word)
  if p == nil then
    return nil
  end
  if COPIES[p] then
    return COPIES[p]
  end
  p = string.lower(p)
  return PATHS.secret_kind(p) or PATHS.secret_dir(p)
end

-- TOKEN_PRINTERS are commands that print a credential: the words after the
-- program that must all be present.
local TOKEN_PRINTERS = {
  { "gh", "auth", "token" }, { "aws", "configure", "export-credentials" },
  { "aws", "configure", "get" }, { "gcloud", "auth", "print-access-token" },
  { "gcloud", "auth", "print-identity-token" }, { "gcloud", "auth", "application-default", "print-access-token" },
  { "az", "account", "get-access-token" }, { "security", "find-generic-password" },
  { "security", "find-internet-password" }, { "security", "dump-keychain" },
  { "gpg", "--export-secret-keys" }, { "gpg", "--export-secret-subkeys" }, { "op", "read" },
  { "op", "item", "get" }, { "vault", "read" }, { "vault", "kv", "get" }, { "pass", "show" },
  { "heroku", "auth:token" }, { "doppler", "secrets" }, { "kubectl", "get", "secret" },
  { "kubectl", "get", "secrets" }, { "npm", "token" },
}

-- source says what secret a command prints (the environment, a credential
-- file, a token), or nil.
local function source(w)
  local eff = unwrap(w)
  if #eff == 0 then
    -- env alone (env is also a wrapper, so nothing is left of it)
    for _, x in ipairs(w) do
      if basename(x) == "env" then
        return "the environment (env)"
      end
    end
    return nil
  end
  w = eff
  local name = basename(w[1])
  local operands = {}
  for k = 2, #w do
    if string.sub(w[k], 1, 1) ~= "-" then
      operands[#operands + 1] = w[k]
    end
  end
  if (name == "env" or name == "printenv") and (#operands == 0 or (name == "printenv" and re.find("$" .. operands[1], SECRET_VAR))) then
    return "the environment (" .. name .. ")"
  end
  if (name == "export" or name == "declare" or name == "typeset" or name == "set") and #operands == 0 then
    return "the environment (" .. name .. ")"
  end
  if name == "echo" or name == "printf" then
    for k = 2, #w do
      if re.find(w[k], SECRET_VAR) then
        return "a secret variable"
      end
    end
  end
  for _, tp in ipairs(TOKEN_PRINTERS) do
    if name == tp[1] then
      local all = true
      for j = 2, #tp do
        local seen = false
        for k = 2, #w do
          if w[k] == tp[j] then
            seen = true
          end
        end
        if not seen then
          all = false
        end
      end
      if all then
        return "a credential (" .. table.concat(tp, " ") .. ")"
      end
    end
  end
  for k = 2, #w do
    local v = string.match(w[k], "^[A-Za-z-]*=(.+)$") or w[k]
    local kind = secret_path(v)
    if kind then
      return kind
    end
  end
  return nil
end

-- substitutions returns the texts of the command substitutions of a word
-- ($(...) and `...`).
local function substitutions(word)
  local out = {}
  local i, n = 1, string.len(word)
  while i <= n do
    local a = string.find(word, "$(", i, true)
    local t = string.find(word, "`", i, true)
    if a and (t == nil or a < t) then
      local depth, j = 1, a + 2
      while j <= n and depth > 0 do
        local c = string.sub(word, j, j)
        if c == "(" then
          depth = depth + 1
        elseif c == ")" then
          depth = depth - 1
        end
        j = j + 1
      end
      out[#out + 1] = string.sub(word, a + 2, j - 2)
      i = j
    elseif t then
      local e = string.find(word, "`", t + 1, true) or n + 1
      out[#out + 1] = string.sub(word, t + 1, e - 1)
      i = e + 1
    else
      break
    end
  end
  return out
end

-- substituted_secret says what secret the command substitutions of words
-- print, or nil (curl -d "$(env)", dig $(cat ~/.ssh/id_rsa | base64).x).
local function substituted_secret(words)
  for _, word in ipairs(words) do
    if string.find(word, "$(", 1, true) or string.find(word, "`", 1, true) then
      for _, text in ipairs(substitutions(word)) do
        for _, c in ipairs(commands(text)) do
          local what = source(c.words or {})
          if what then
            return what
          end
        end
      end
    end
  end
  return nil
end

-- DATA_OPTS are the options whose value is the body a sender posts (a
-- secret variable there is sent, unlike one in a header).
local DATA_OPTS = {
  ["-d"] = true, ["--data"] = true, ["--data-binary"] = true, ["--data-raw"] = true,
  ["--data-urlencode"] = true, ["--data-ascii"] = true, ["-F"] = true, ["--form"] = true,
  ["--form-string"] = true, ["--json"] = true, ["--post-data"] = true, ["--body-data"] = true,
  ["--body"] = true,
}

-- GENERIC_WORDS are the words of a secret variable's name that name no
-- service (AWS_SECRET_ACCESS_KEY: aws is the service).
local GENERIC_WORDS = {}
for w in string.gmatch("key keys token tokens secret secrets api access client auth oauth password passwd pwd pass "
  .. "credential credentials private bot app id my the prod production dev staging test personal pat bearer session "
  .. "refresh service account user master root admin", "%S+") do
  GENERIC_WORDS[w] = true
end

-- url_hosts returns the hosts of the URLs among words (lowered).
local function url_hosts(words)
  local out = {}
  for k = 2, #words do
    local _, _, h = re.find(words[k], [[^(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?(?:[^/@\s]*@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,}|localhost)(?::\d+)?(?:[/?#]|$)]])
    if h then
      out[#out + 1] = string.lower(h)
    end
  end
  return out
end

-- own_service says whether every host is the service a name is for: one
-- of the name's words that names a service (GITHUB in GITHUB_TOKEN, gh for
-- gh auth token) is part of each host, or the host is this machine.
local function own_service(name, hosts)
  if #hosts == 0 then
    return false
  end
  for _, h in ipairs(hosts) do
    local ok = h == "localhost" or string.match(h, "^127%.") ~= nil
    if not ok then
      for word in string.gmatch(string.lower(name), "[a-z0-9]+") do
        if not GENERIC_WORDS[word] and string.len(word) >= 2 and string.find(h, word, 1, true) then
          ok = true
          break
        end
      end
    end
    if not ok then
      return false
    end
  end
  return true
end

-- PRINTER_SERVICE: the service whose API a token printer's token is for,
-- as a word of its hosts.
local PRINTER_SERVICE = {
  gh = "github", gcloud = "googleapis", az = "azure", aws = "amazonaws", heroku = "heroku",
  npm = "npmjs", doppler = "doppler",
}

-- header_to_own_service says whether word, a header a sender sets, holds
-- only token printers whose service every host is (curl -H "Authorization:
-- token $(gh auth token)" https://api.github.com/...).
local function header_to_own_service(word, hosts)
  local subs = substitutions(word)
  if #subs == 0 then
    return false
  end
  for _, text in ipairs(subs) do
    for _, c in ipairs(commands(text)) do
      local cw = unwrap(c.words or {})
      local svc = cw[1] and PRINTER_SERVICE[basename(cw[1])]
      if svc == nil or not own_service(svc, hosts) then
        return false
      end
    end
  end
  return true
end

local SEND_FILE_OPTS = {
  ["-d"] = true, ["--data"] = true, ["--data-binary"] = true, ["--data-raw"] = false,
  ["--data-urlencode"] = true, ["-F"] = true, ["--form"] = true, ["-T"] = true,
  ["--upload-file"] = true, ["--post-file"] = true, ["--body-file"] = true, ["--json"] = true,
}

-- sent_secret says what credentials a sender's own words send (curl -F
-- f=@~/.aws/credentials, scp ~/.ssh/id_rsa host:, rsync ~/.gnupg host:),
-- or nil.
local function sent_secret(w)
  local name = basename(w[1])
  local hosts = nil
  for k = 2, #w do
    -- a secret variable in the body posted to another service
    local dv = DATA_OPTS[w[k]] and w[k + 1] or string.match(w[k], "^%-%-[%w-]+=(.*)$") and DATA_OPTS[string.match(w[k], "^(%-%-[%w-]+)=")] and string.match(w[k], "=(.*)$")
    if dv == nil and (name == "curl") then
      local cl, att = string.match(w[k], "^%-([A-Za-z]*[dF])(.+)$")
      if cl then
        dv = att
      end
    end
    if dv == nil and (name == "http" or name == "https" or name == "xh") and k > 2 then
      dv = string.match(w[k], "^[%w_.-]+:?=(.*)$")
    end
    if type(dv) == "string" then
      local a, b = re.find(dv, SECRET_VAR)
      if a then
        local var = string.gsub(string.sub(dv, a, b), "[${}]", "")
        hosts = hosts or url_hosts(w)
        if not own_service(var, hosts) then
          return "a secret variable ($" .. var .. ")"
        end
      end
    end
  end
  for k = 2, #w do
    local a, v = w[k], nil
    local opt, val = string.match(a, "^(%-%-[%w-]+)=(.*)$")
    local cluster, attached = string.match(a, "^%-([A-Za-z]*[dFT])(.*)$")
    if opt and SEND_FILE_OPTS[opt] then
      v = val
    elseif SEND_FILE_OPTS[a] then
      v = w[k + 1]
    elseif cluster and (name == "curl") then
      -- -sT FILE, -sF k=@FILE, -Fk=@FILE
      v = attached ~= "" and attached or w[k + 1]
    elseif string.find(a, "@", 1, true) and (name == "http" or name == "https" or name == "xh") then
      v = a
    end
    if v then
      v = re.gsub(v, "^[^=@<]*[=]?[@<]", "")
      local kind = secret_path(v)
      if kind then
        return kind
      end
    end
  end
  if name == "gh" then
    -- gh gist create FILE, gh release upload TAG FILE
    for k = 3, #w do
      local kind = string.sub(w[k], 1, 1) ~= "-" and secret_path(w[k])
      if kind then
        return kind
      end
    end
  end
  if name == "scp" or name == "rsync" or name == "sftp" or name == "rclone" or name == "gsutil" or name == "aws" then
    local f = parse_flags(w, 2, name == "scp" and "cFiJlloPS" or "eBfT")
    local last = f.args[#f.args] or ""
    if re.find(last, [[^[A-Za-z0-9_.@-]+:|^[a-z0-9]+://]]) and not re.find(last, [[^(file|\./|/)]]) then
      for k = 1, #f.args - 1 do
        local kind = secret_path(f.args[k])
        if kind then
          return kind
        end
      end
    end
  end
  return nil
end

-- exfiltration checks a sender (words, the command's redirections and the
-- stages of its pipeline before it) for the environment or credentials it
-- would send.
local function exfiltration(w, redirects, pipeline)
  local name = basename(w[1])
  if P.exfiltration == "off" or not SENDERS[name] then
    return nil
  end
  local upstream = {}
  for k = 1, #pipeline - 1 do
    upstream[k] = pipeline[k]
  end
  -- a token printer in a header sent to its own service is how its API
  -- is called
  local words, hosts = w, nil
  for k = 2, #w do
    local hv = (w[k - 1] == "-H" or w[k - 1] == "--header") and w[k] or string.match(w[k], "^%-%-header=(.*)$")
    if hv and string.find(hv, "[$`]") then
      hosts = hosts or url_hosts(w)
      if header_to_own_service(hv, hosts) then
        if words == w then
          words = {}
          for j = 1, #w do
            words[j] = w[j]
          end
        end
        words[k] = ""
      end
    end
  end
  local what = sent_secret(w) or substituted_secret(words)
  if what == nil and type(redirects) == "table" then
    for _, r in ipairs(redirects) do
      if r.op == "<" and type(r.target) == "string" then
        what = secret_path(r.target)
      end
    end
  end
  for k = 1, #upstream do
    if what then
      break
    end
    what = source(upstream[k]) or substituted_secret(upstream[k])
  end
  if what then
    return deny("exfiltrate", name .. " would send " .. what .. " over the network")
  end
  return nil
end

-- CODE_NET and ENV_DUMP: a one-line program that sends the whole
-- environment or a credential file over the network.
local CODE_NET = [[(?i)(urlopen|urllib|require\(\s*['"](node:)?https?['"]\s*\)|requests\.(get|post|put)|httpx\.|\bfetch\s*\(|https?\.(get|request)\s*\(|\.(request|post|put)\s*\(|axios|net::http|http\.post|socket|smtplib|ftplib|file_get_contents\(\s*['"]https?://|curl|wget|sendbeacon|xmlhttprequest)]]
local ENV_DUMP = [[(?i)(dict\(\s*os\.environ\s*\)|os\.environ\.(copy|items)\(|json\.dumps\(\s*(dict\(\s*)?os\.environ|str\(\s*os\.environ|os\.environ\s*[,)]|JSON\.stringify\(\s*process\.env\s*\)|process\.env\s*[,)}]|Object\.(entries|keys|values)\(\s*process\.env|ENV\.(to_h|to_a|to_hash|inspect)|\bENV\s*[,)]|%ENV|\$_ENV|\$_SERVER|getenv\(\s*\)|Deno\.env\.toObject|Bun\.env\s*[,)])]]

-- CODE_SECRET_VAR finds a one-line program's read of a secret variable
-- (os.environ['X_TOKEN'], process.env.X_KEY, ENV['X_SECRET'], getenv).
local CODE_SECRET_VAR = [[(?:os\.environ(?:\.get)?\s*[\[(]\s*|os\.getenv\(\s*|process\.env\.|process\.env\[\s*|\bENV\[\s*|ENV\.fetch\(\s*|getenv\(\s*|Deno\.env\.get\(\s*|Bun\.env\.)['"]?([A-Za-z0-9_]*(?i:key|token|secret|passw|pwd|credential|auth)[A-Za-z0-9_]*)]]

-- code_exfiltration checks a one-line program (home expressions already
-- read as '~') that talks to the network for the environment or a
-- credential file it would send.
code_exfiltration = function(lang, hcode)
  if P.exfiltration == "off" or not re.find(hcode, CODE_NET) then
    return nil
  end
  if re.find(hcode, ENV_DUMP) then
    return deny("exfiltrate", lang .. " code would send the environment over the network")
  end
  local strs = quoted_strings(hcode)
  for _, str in ipairs(strs) do
    local kind = secret_path(str)
    if kind then
      return deny("exfiltrate", lang .. " code would send " .. kind .. " over the network")
    end
  end
  -- a secret variable read by a program that talks to another service
  local _, _, var = re.find(hcode, CODE_SECRET_VAR)
  if var then
    local words = { "" }
    for _, str in ipairs(strs) do
      words[#words + 1] = str
    end
    if not own_service(var, url_hosts(words)) then
      return deny("exfiltrate", lang .. " code would send a secret variable ($" .. var .. ") over the network")
    end
  end
  return nil
end

---------------------------------------------------------------------------
-- Lines, pipelines and variables
---------------------------------------------------------------------------

local FETCHERS = { curl = true, wget = true, fetch = true, http = true, https = true, xh = true, aria2c = true, lwp = true, ["lwp-request"] = true, iwr = true, irm = true, ["invoke-webrequest"] = true, ["invoke-restmethod"] = true, nc = true, ncat = true, socat = true }
local SINKS = {
  sh = true, bash = true, zsh = true, dash = true, ksh = true, fish = true, ash = true, mksh = true,
  csh = true, tcsh = true, python = true, perl = true, ruby = true, node = true, php = true,
  pwsh = true, powershell = true, iex = true, ["invoke-expression"] = true, source = true,
  ["."] = true, eval = true, tclsh = true, wish = true, lua = true, luajit = true, r = true,
  rscript = true, osascript = true, bun = true, deno = true,
}

local function decoder(w)
  local n = basename(w[1])
  if n == "base64" or n == "base32" or n == "basenc" then
    for k = 2, #w do
      if w[k] == "-d" or w[k] == "--decode" or w[k] == "-D" then
        return true
      end
    end
  end
  if n == "xxd" then
    for k = 2, #w do
      if w[k] == "-r" or w[k] == "-rp" or w[k] == "-r -p" then
        return true
      end
    end
  end
  if n == "openssl" and (w[2] == "base64" or w[2] == "enc") then
    for k = 3, #w do
      if w[k] == "-d" then
        return true
      end
    end
  end
  -- text turned around, rotated or decompressed is as unseen as base64
  if n == "rev" or n == "tr" or n == "gunzip" or n == "zcat" or n == "bzcat" or n == "xzcat" or n == "zstdcat" then
    return true
  end
  if n == "gzip" or n == "bzip2" or n == "xz" or n == "zstd" then
    for k = 2, #w do
      if re.match(w[k], "^(-[a-zA-Z]*d[a-zA-Z]*|--decompress)$") then
        return true
      end
    end
  end
  return false
end

-- DECODE_SUBST finds a decoder (see decoder) in the text of a command,
-- process substitution or backticks.
local DECODE_SUBST = [=[(?i)(\$\(|<\(|`)[^`]*?\b(base(64|32)\b[^|;&)`]*\s(-[a-z]*d[a-z]*|--decode)\b|basenc\b[^|;&)`]*\s(-d|--decode)\b|xxd\b[^|;&)`]*\s-[a-z]*r|rev\b|openssl\b[^|;&)`]*\s-d\b|tr\s+['"]?\[?[a-z]-|gunzip\b|zcat\b|b64decode|decode_base64|unhexlify|frombase64string)]=]

-- decoded says whether a word holds a substitution whose output is decoded
-- text, which is then run unseen when the word is a command or a script.
local function decoded(word)
  return (string.find(word, "(", 1, true) or string.find(word, "`", 1, true)) and re.find(word, DECODE_SUBST) ~= nil
end

-- sink says whether words run a program read from standard input.
local function sink(w)
  local n = basename(w[1])
  local base = re.gsub(n, [[[0-9.]+$]], "")
  if not (SINKS[n] or SINKS[base]) then
    return false
  end
  for k = 2, #w do
    local a = w[k]
    if a == "-c" or a == "-e" or a == "-r" then
      return false
    end
    if a ~= "-" and string.sub(a, 1, 1) ~= "-" then
      return n == "eval" or n == "iex"
    end
  end
  return true
end

local SUBST_FETCH = [[(\$\(|<\(|`)\s*(sudo\s+)?(curl|wget|fetch|iwr|irm|http|xh)\b]]
local SUBST_SINK = [[(?i)(^|[\s;&|(])((ba|z|da|k|fi|a|c|tc|mk)?sh|source|eval|python[0-9.]*|perl|ruby|node|php|\.)\s]]

-- SUBST.frame is what a call of the function name starts from: its
-- arguments, a copy of the variables and arrays (but FUNCNAME, which grows
-- with each call) and the directory, and the frame of the call it was made
-- from (up).
SUBST.frame = function(up, name, args, vars, arrays, cwd)
  local f = { up = up, name = name, args = args, vars = {}, arrays = {}, cwd = cwd }
  for k, v in pairs(vars or {}) do
    if k ~= "FUNCNAME" then
      f.vars[k] = v
    end
  end
  for k, v in pairs(arrays or {}) do
    if k ~= "FUNCNAME" then
      f.arrays[k] = v
    end
  end
  return f
end

-- SUBST.same_call says whether a call of name with args from the state
-- vars, arrays and cwd starts exactly as a call on the stack above did (a
-- function that calls itself again with nothing changed, as retry(){ "$@"
-- || { sleep 1; retry "$@"; }; } does): it runs nothing that call did not.
SUBST.same_call = function(frame, name, args, vars, arrays, cwd)
  local function same_list(a, b)
    if #a ~= #b then
      return false
    end
    for i = 1, #a do
      if a[i] ~= b[i] then
        return false
      end
    end
    return true
  end
  local function same_map(a, b, lists)
    for k, v in pairs(b or {}) do
      if k ~= "FUNCNAME" and a[k] == nil then
        return false
      end
    end
    for k, v in pairs(a) do
      local o = (b or {})[k]
      if lists then
        if type(o) ~= "table" or type(v) ~= "table" or not same_list(v, o) then
          return false
        end
      elseif o ~= v then
        return false
      end
    end
    return true
  end
  while frame do
    if frame.name == name and frame.cwd == cwd and same_list(frame.args, args)
      and same_map(frame.vars, vars) and same_map(frame.arrays, arrays, true) then
      return true
    end
    frame = frame.up
  end
  return false
end

-- XST is the state of monad.expand for one tool call: over is set when a
-- word grew past the length a line's values can give it (a=$a$a
-- doubling), or held more substitutions than monad.expand reads: the rest
-- is left as written, and the handler denies the line when it names a
-- program the rules know; root is what $(git rev-parse --show-toplevel)
-- prints.
local XST = { over = false, root = ROOT }

-- subst is the text of the word w with what the line knows put in
-- (monad.expand subst): its variables (vars), ${NAME:-DEFAULT}, the
-- output of the substitutions that only print; limit bounds its length.
local function subst(w, vars, limit)
  return E.subst(w, vars, limit, XST)
end

-- ifs_field is the Lua pattern of one field of a word split at the
-- characters of IFS (IFS=, IFS=:), or nil when IFS is unset or only
-- blanks (the words are then as the parser gives them).
local function ifs_field(vars)
  local ifs = vars and vars.IFS
  if type(ifs) ~= "string" or not string.find(ifs, "%S") then
    return nil
  end
  return "[^" .. string.gsub(ifs, "%W", "%%%0") .. "]+"
end

-- bare_names returns the set of the variables (and positional
-- parameters) that line expands outside quotes only ($v, ${v}, $1, never
-- "$v"): the shell splits their values at blanks. A name expanded both
-- ways is left out (the parser's words do not say which use is which: rm
-- -rf "$v" after echo $v is one path). A quote inside a substitution
-- inside quotes ("$(echo "$v")") counts as closing the outer one. nil
-- when there are none. Second, when a name is expanded both ways or
-- outside quotes inside a longer word (x$v), the line's expansions in
-- text order, true for those outside quotes (see SUBST.word_flags).
local function bare_names(line)
  if not string.find(line, "$", 1, true) then
    return nil
  end
  local set, quoted, q, i = nil, {}, nil, 1
  local occ, need = {}, false
  while true do
    -- the next quote, backslash or $ (in single quotes, the closing one)
    local at = string.find(line, q == "'" and "'" or "[\\'\"$]", i)
    if not at then
      break
    end
    i = at
    local c = string.sub(line, i, i)
    if q == "'" then
      if c == "'" then
        q = nil
      end
    elseif c == "\\" then
      i = i + 1
    elseif c == "'" and q == nil then
      q = "'"
    elseif c == '"' then
      q = q == nil and '"' or nil
    elseif c == "$" then
      local name = string.match(line, "^{?([%a_][%w_]*)", i + 1) or string.match(line, "^{?([0-9])", i + 1)
      if name and q == nil then
        set = set or {}
        set[name] = true
      elseif name then
        quoted[name] = true
      end
      if name then
        occ[#occ + 1] = q == nil
        -- outside quotes inside a longer word (x$v, $v/x): the line needs
        -- a reading word by word (SUBST.word_flags)
        if q == nil and not need then
          local prev = string.sub(line, i - 1, i - 1)
          local close = string.sub(line, i + 1, i + 1) == "{" and string.find(line, "}", i, true) or (i + string.len(name))
          local nxt = string.sub(line, close + 1, close + 1)
          need = (prev ~= "" and not string.find(prev, "[%s;&|(=]")) or (nxt ~= "" and not string.find(nxt, "[%s;&|)]"))
        end
      end
    end
    i = i + 1
  end
  for name in pairs(quoted) do
    if set and set[name] then
      -- expanded inside and outside quotes
      set[name] = nil
      need = true
    end
  end
  return set, need and occ or nil
end

-- SUBST.word_flags tells, word by word, which expansions the shell splits
-- at blanks where the line's words cannot say (the parser resolves
-- quotes): a variable expanded both inside and outside quotes (echo
-- "$v"; rm -rf $v) or outside quotes inside a longer word (rm -rf x$v).
-- occ is the line's expansions in text order, true for those outside
-- quotes (bare_names). The commands the line lists in text order (not
-- those inside substitutions or command strings) hold the expansions of
-- their assignments, words and redirection targets in that order; when
-- their count is occ's, the i-th is the i-th of occ, and a word is split
-- when its expansions are all outside quotes and it is one expansion or
-- holds no blank as written. It returns, per command, the raw words that
-- hold expansions with their decisions in order (words[raw] = {bool...}),
-- or nil when the count differs (single quotes, here-documents, case
-- words, backslashes: the line-wide reading of bare_names stands).
SUBST.word_flags = function(cmds, occ, line)
  if #occ > 256 or string.find(line, "<<", 1, true) then
    return nil
  end
  local refs = SUBST.refs
  local total, listed = 0, {}
  for _, c in ipairs(cmds) do
    local via = c.via or ""
    if via == "" or via == "(" or via == "{" then
      listed[#listed + 1] = c
      for _, v in pairs(type(c.assigns) == "table" and c.assigns or {}) do
        total = total + refs(v, 0)
      end
      for _, w in ipairs(c.words or {}) do
        total = total + refs(w, 0)
      end
      for _, r in ipairs(type(c.redirects) == "table" and c.redirects or {}) do
        total = total + refs(type(r.target) == "string" and r.target or "", 0)
      end
    end
  end
  if total ~= #occ then
    return nil
  end
  local flags, n = {}, 0
  for _, c in ipairs(listed) do
    for _, v in pairs(type(c.assigns) == "table" and c.assigns or {}) do
      n = n + refs(v, 0)
    end
    local words = nil
    for _, w in ipairs(c.words or {}) do
      local k = refs(w, 0)
      if k > 0 then
        local split = not string.find(w, "%s") or re.match(w, [[^\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9])\}?$]])
        for j = n + 1, n + k do
          split = split and occ[j]
        end
        n = n + k
        words = words or {}
        words[w] = words[w] or {}
        local list = words[w]
        list[#list + 1] = split and true or false
      end
    end
    for _, r in ipairs(type(c.redirects) == "table" and c.redirects or {}) do
      n = n + refs(type(r.target) == "string" and r.target or "", 0)
    end
    flags[c] = words
  end
  return flags
end

-- SUBST.refs is out plus the number of expansions ($NAME, ${NAME...},
-- $N) in word.
SUBST.refs = function(word, out)
  local i = 1
  while true do
    local at = string.find(word, "$", i, true)
    if not at then
      return out
    end
    if string.match(word, "^{?[%a_][%w_]*", at + 1) or string.match(word, "^{?[0-9]", at + 1) then
      out = out + 1
    end
    i = at + 1
  end
end

-- SUBST.bare_of is the split reading of one command: the line's set of
-- names expanded only outside quotes (bare), with the command's word
-- decisions (flags) under the key "$w" (no name holds a $).
SUBST.bare_of = function(bare, flags)
  if flags == nil then
    return bare
  end
  local out = { ["$w"] = flags }
  for k, v in pairs(bare or {}) do
    out[k] = v
  end
  return out
end

-- SUBST.rewind starts the reading of a command's word decisions over
-- (expand and positional read them in word order), and SUBST.next_word
-- moves to the next use of the raw word w.
SUBST.rewind = function(bare)
  for _, q in pairs(bare and bare["$w"] or {}) do
    q.i = 0
  end
end
SUBST.next_word = function(bare, w)
  local q = bare and bare["$w"] and bare["$w"][w]
  if q then
    q.i = (q.i or 0) + 1
  end
end

-- split_fields appends to out the fields of the word w and returns true
-- when it was expanded (w is not raw) and splits: at the characters of an
-- IFS of other characters than blanks (IFS=,; set -- $1 with $1 "x,/"),
-- or at blanks when raw is only a variable the line expands outside
-- quotes (bare, see bare_names: DIRS="build ~"; rm -rf $DIRS) and not the
-- command's name; else it appends nothing and returns false.
local function split_fields(out, w, raw, field, bare)
  -- (not a declarer's NAME=VALUE, which is not split: bind splits an
  -- array's elements)
  if w == raw or string.match(w, "^[%a_][%w_]*=") then
    return false
  end
  local at = field
  if not at and bare and raw and #out > 0 and string.find(w, "%s") then
    local q = bare["$w"] and bare["$w"][raw]
    if q then
      -- the decision for this use of the word (SUBST.word_flags)
      at = q[q.i or 1] and "%S+" or nil
    else
      local name = string.match(raw, "^%${?([%a_][%w_]*)}?$") or string.match(raw, "^%${?([0-9])}?$")
      if name and bare[name] then
        at = "%S+"
      end
    end
  end
  if not at then
    return false
  end
  local n = #out
  for f in string.gmatch(w, at) do
    out[#out + 1] = f
  end
  return #out > n
end

local function expand(words, vars, bare)
  local out = {}
  local field = ifs_field(vars)
  SUBST.rewind(bare)
  for _, raw in ipairs(words) do
    SUBST.next_word(bare, raw)
    local w = subst(raw, vars)
    -- brace expansion of a whole word: {rm,-rf,/}
    local body = string.match(w, "^{([^{}]*,[^{}]*)}$")
    if (field or bare) and split_fields(out, w, raw, field, bare) then
      -- the fields of an expansion (IFS=,; $v, rm -rf $DIRS)
    elseif body then
      for part in string.gmatch(body .. ",", "([^,]*),") do
        out[#out + 1] = part
      end
    elseif string.find(w, " ", 1, true) and re.match(w, "^\\S+( \\S+)+$") and #out == 0 and not re.find(w, "\\$\\(|`") then
      -- a command word that became several through $IFS or a variable
      for part in string.gmatch(w, "%S+") do
        out[#out + 1] = part
      end
    else
      out[#out + 1] = w
    end
  end
  return out
end

-- written_script returns the text a command runs from a script written
-- earlier on the line ({text, lang}, lang nil for a shell): bash x.sh, sh
-- x.sh, source x.sh, ./x.sh, python3 x.py.
local function written_script(w)
  if next(SCRIPTS) == nil then
    return nil
  end
  local name = basename(w[1])
  local own = SCRIPTS[norm(w[1]) or ""]
  if own then
    return { text = own }
  end
  local lang = interp_lang(name)
  if SHELLS[name] or name == "source" or name == "." or lang then
    for k = 2, #w do
      if string.sub(w[k], 1, 1) ~= "-" then
        local text = SCRIPTS[norm(w[k]) or ""]
        if text then
          return { text = text, lang = (not SHELLS[name] and name ~= "source" and name ~= ".") and lang or nil }
        end
        return nil
      end
    end
  end
  return nil
end

-- slice is list from the index from (0-based) on, len elements when len
-- is a number ("" for all): ${@:N:M}, ${a[@]:N:M}.
local function slice(list, from, len)
  local out = {}
  local last = #list
  if len ~= nil and len ~= "" then
    last = math.min(last, from + tonumber(len))
  end
  for k = from + 1, last do
    out[#out + 1] = list[k]
  end
  return out
end

-- bind sets the variable n to v in vars, or an array (a=(rm -rf ~)) in
-- arrays, whose $a is its first element.
local function bind(vars, arrays, n, v)
  local elems = string.match(v, "^%((.*)%)$")
  if elems then
    local list = split(elems) or {}
    local field = ifs_field(vars)
    if field then
      -- IFS=,; a=($1): the elements' fields (the value was expanded
      -- before, so its literal words are split too)
      local fields = {}
      for _, x in ipairs(list) do
        if not split_fields(fields, x, nil, field) then
          fields[#fields + 1] = x
        end
      end
      list = fields
    end
    -- ([k]=v ...): an associative (or indexed) array written by keys;
    -- its keys are kept beside the values
    local keyed = {}
    for k, x in ipairs(list) do
      local key, val = string.match(x, "^%[([^%]]*)%]=(.*)$")
      if key then
        keyed[string.gsub(key, "[\"']", "")] = val
        list[k] = val
      end
    end
    if next(keyed) then
      list.keys = keyed
    end
    arrays[n] = list
    v = list[1] or ""
  end
  vars[n] = v
end

-- bind_element sets one element of an array (a[1]=/, m[key]=v).
local function bind_element(arrays, n, key, v)
  local list = arrays[n] or {}
  arrays[n] = list
  local i = tonumber(key)
  if i and i >= 0 and i <= #list then
    list[i + 1] = v
  else
    -- a key, or an index past the end (kept by key: no gap is filled)
    list.keys = list.keys or {}
    list.keys[string.gsub(key, "[\"']", "")] = v
  end
end

-- read_array binds the array that read -a, readarray or mapfile (first)
-- fills from a here-string or here-document: its words (read -a) or
-- lines.
local MAPFILE_VALUES = { ["-d"] = true, ["-n"] = true, ["-O"] = true, ["-s"] = true, ["-u"] = true, ["-C"] = true, ["-c"] = true }
local READ_VALUES = { ["-d"] = true, ["-n"] = true, ["-N"] = true, ["-p"] = true, ["-t"] = true, ["-u"] = true, ["-i"] = true }
local function read_array(first, words, redirects, arrays, vars, loops, xp)
  local text = nil
  for _, r in ipairs(redirects) do
    if r.op == "<<<" and type(r.target) == "string" then
      -- a here-string's word is expanded (<<< "$1", <<< "$s")
      text = xp(r.target)
    elseif (r.op == "<<" or r.op == "<<-") and type(r.body) == "string" then
      text = xp(r.body, r)
    end
  end
  if not text then
    return
  end
  local name, list = nil, {}
  local names = {}
  local k = 2
  while k <= #words do
    local w = words[k]
    if first == "read" then
      local rest = string.match(w, "^%-%a-a(.*)$")
      if rest then
        name = rest ~= "" and rest or words[k + 1]
        break
      end
      if READ_VALUES[w] then
        k = k + 1
      elseif string.sub(w, 1, 1) ~= "-" and string.match(w, "^[%a_][%w_]*$") then
        names[#names + 1] = w
      end
    elseif MAPFILE_VALUES[w] then
      k = k + 1
    elseif string.sub(w, 1, 1) ~= "-" then
      name = w
    end
    k = k + 1
  end
  if first == "read" and not name and #names > 0 then
    -- read NAME... : the first line's words, the last name the rest; one
    -- name takes each line in turn (while read -r c; do $c; done <<< ...)
    local lines = {}
    for l in string.gmatch(text, "[^\n]+") do
      lines[#lines + 1] = l
    end
    if #names == 1 then
      vars[names[1]] = lines[1] or ""
      loops[names[1]] = #lines > 1 and lines or nil
      return
    end
    local rest = lines[1] or ""
    local field = ifs_field(vars)
    if field then
      -- IFS=, read -r a b: fields at its characters, the last name the
      -- rest
      local fields = {}
      for f in string.gmatch(rest, field) do
        fields[#fields + 1] = f
      end
      for i, n in ipairs(names) do
        vars[n] = i == #names and table.concat(fields, string.sub(vars.IFS, 1, 1), i) or fields[i] or ""
      end
      return
    end
    for i, n in ipairs(names) do
      if i == #names then
        vars[n] = string.match(rest, "^%s*(.-)%s*$")
      else
        local w, r = string.match(rest, "^%s*(%S*)(.*)$")
        vars[n], rest = w, r
      end
    end
    return
  end
  if not name or not string.match(name, "^[%a_][%w_]*$") then
    return
  end
  for x in string.gmatch(text, first == "read" and (ifs_field(vars) or "%S+") or "[^\n]+") do
    list[#list + 1] = x
  end
  arrays[name] = list
end

-- DECLARERS are the commands that set variables named in their words.
local DECLARERS = { export = true, declare = true, typeset = true, ["local"] = true, readonly = true }

-- positional substitutes the arguments of a function call (or of set --
-- earlier on the line) for $1..$9, ${N}, $@ and $* in the words of its
-- body; with arrays (name -> elements, set earlier on the line: a=(rm -rf
-- ~), declare -a a=(...)) also ${a[@]}, ${a[*]} (the elements, a word
-- each when the word is nothing else), ${a[N]} and $a (the first). args
-- nil leaves $1.. as they are.
local function positional(words, args, arrays, vars, bare)
  local out = {}
  local field = ifs_field(vars)
  SUBST.rewind(bare)
  for _, w in ipairs(words) do
    SUBST.next_word(bare, w)
    local raw = w
    local whole = args and (w == "$@" or w == "$*" or w == "${@}" or w == "${*}") and args
    if args and not whole then
      -- ${@:N} and ${@:N:M}: from $N on
      local from, len = string.match(w, "^%${[@*]:(%d+):?(%d*)}$")
      if from then
        whole = slice(args, tonumber(from) - 1, len)
      end
    end
    if arrays and not whole then
      local name = string.match(w, "^%${([A-Za-z_][A-Za-z0-9_]*)%[[@*]%]}$")
      whole = name and arrays[name]
      -- ${!a[@]}: the indices
      local iname = not whole and string.match(w, "^%${!([A-Za-z_][A-Za-z0-9_]*)%[[@*]%]}$")
      if iname and arrays[iname] then
        whole = {}
        for i = 1, #arrays[iname] do
          whole[i] = tostring(i - 1)
        end
      end
      if not whole then
        -- ${a[@]:N} and ${a[@]:N:M}: from the element N on
        local n, from, len = string.match(w, "^%${([A-Za-z_][A-Za-z0-9_]*)%[[@*]%]:(%d+):?(%d*)}$")
        if n and arrays[n] then
          whole = slice(arrays[n], tonumber(from), len)
        end
      end
      if not whole and string.find(w, "$", 1, true) then
        for n, elems in pairs(arrays) do
          if string.find(w, n, 1, true) then
            local all = string.gsub(table.concat(elems, " "), "%$", "$$")
            w = re.gsub(w, [[\$\{]] .. n .. [[\[[@*]\]\}]], all)
            w = string.gsub(w, "%${" .. n .. "%[(%d+)%]}", function(i)
              return elems[tonumber(i) + 1] or (elems.keys and elems.keys[i]) or ""
            end)
            -- ${a[$i]}, ${a[i]}: an index held by a variable
            if vars then
              w = string.gsub(w, "%${" .. n .. "%[%$?{?([%a_][%w_]*)}?%]}", function(v)
                local i = tonumber(vars[v] or "")
                if i then
                  return elems[i + 1] or (elems.keys and elems.keys[tostring(i)]) or ""
                end
                return nil
              end)
            end
            if elems.keys then
              w = string.gsub(w, "%${" .. n .. "%[([^%]]+)%]}", function(key)
                return elems.keys[(string.gsub(key, "[\"'$]", ""))] or ""
              end)
            end
            w = re.gsub(w, [[\$\{]] .. n .. [[\}|\$]] .. n .. [[\b]], (string.gsub(elems[1] or "", "%$", "$$")))
          end
        end
      end
    end
    if whole then
      for _, a in ipairs(whole) do
        out[#out + 1] = a
      end
    elseif args and string.find(w, "$", 1, true) then
      -- "$@" written inside a word, as in an array's elements (a=("$@")):
      -- the arguments, each a word of their own
      w = re.gsub(w, [["\$\{?@\}?"]], (string.gsub(table.concat(args, " "), "%$", "$$")))
      w = re.gsub(w, [[\$\{?[@*]\}?]], (string.gsub(table.concat(args, " "), "%$", "$$")))
      -- ${1:-DEFAULT}: the argument, or the default without one
      w = string.gsub(w, "%${([1-9]):?[-=]([^}]*)}", function(n, d)
        local a = args[tonumber(n)]
        if a and a ~= "" then
          return a
        end
        return d
      end)
      for n = 1, 9 do
        if string.find(w, tostring(n), 1, true) then
          w = re.gsub(w, [[\$\{]] .. n .. [[\}|\$]] .. n, (string.gsub(args[n] or "", "%$", "$$")))
        end
      end
      if not split_fields(out, w, raw, field, bare) then
        out[#out + 1] = w
      end
    else
      if not split_fields(out, w, raw, field, bare) then
        out[#out + 1] = w
      end
    end
  end
  return out
end

-- check_argv checks one command's words; eff, when given, is their
-- unwrap (the caller's, to spare a second).
-- TEST_DB and NOT_TEST: a command that names a test environment or a
-- test database (RAILS_ENV=test, --env=testing, app_test, test_db, a
-- compose file for tests: docker-compose.test.yml), and nothing of
-- production.
local TEST_DB = [[(?i)^(RAILS_ENV|RACK_ENV|MIX_ENV|APP_ENV|NODE_ENV|DJANGO_ENV|FLASK_ENV|ENV|ENVIRONMENT)=(test|testing)$|^--env=(test|testing)$|^--settings=\S*[._]tests?(\.|$)|^(--dbname=|--database=)?[a-z0-9_-]*_test$|^test_[a-z0-9_]+$|^(--file=)?(\S*/)?(docker-)?compose[._-](test|tests|testing)\.ya?ml$]]
local NOT_TEST = [[(?i)(^|[=_.:/-])(prod|production|live|staging)([_.:/-]|$)]]

-- test_target says whether a command's words name a test database or
-- environment and nothing of production: its words, its own assignments
-- and its environment (env: NAME=value words, see SUBST.env_of).
local function test_target(words, assigns, env)
  local list = {}
  for _, x in ipairs(words) do
    list[#list + 1] = x
  end
  if type(assigns) == "table" then
    for k, v in pairs(assigns) do
      list[#list + 1] = k .. "=" .. tostring(v)
    end
  end
  for _, x in ipairs(env or {}) do
    list[#list + 1] = x
  end
  local seen = false
  for _, x in ipairs(list) do
    if re.find(x, NOT_TEST) then
      return false
    end
    seen = seen or re.find(x, TEST_DB) ~= nil
    -- a statement's words (-Q "DROP DATABASE app_test"): the names in it
    if not seen and string.find(x, " ", 1, true) then
      for tok in string.gmatch(x, "[%w_.-]+") do
        if re.match(tok, [[(?i)^([a-z0-9_-]*_test|test_[a-z0-9_]+)$]]) then
          seen = true
        end
      end
    end
  end
  return seen
end

-- MAX_VARIANTS bounds the extra checks of commands that use a loop
-- variable (one per further value of its list) and of the commands of
-- function bodies run by calls, on one line; past it the line is denied
-- (too-complex).
local MAX_VARIANTS = 1024

-- spend counts n more checks against the line's budget (ctx.budget); the
-- denial when it is spent.
local function spend(ctx, n)
  local b = ctx.budget
  if b then
    b.n = b.n + n
    if b.n > MAX_VARIANTS then
      return deny("too-complex", "the line runs more commands through loops and functions than the pack examines (" .. MAX_VARIANTS .. ")")
    end
  end
  return nil
end

-- per_value checks a command once more for every further value of each
-- loop variable (loops: name -> values) its words (raw) use; make()
-- builds its words with vars as they are (for d in build ~; do rm -rf
-- "$d"; done).
local function per_value(ctx, loops, raw, vars, make)
  local text = table.concat(raw, " ")
  for name, values in pairs(loops) do
    if string.find(text, name, 1, true) and re.find(text, [[\$\{?]] .. name .. [[\b]]) then
      local keep = vars[name]
      for k = 2, #values do
        local rule, detail = spend(ctx, 1)
        if not rule then
          vars[name] = values[k]
          rule, detail = check_argv(make(), ctx)
        end
        if rule then
          vars[name] = keep
          return rule, detail
        end
      end
      vars[name] = keep
    end
  end
  return nil
end

check_argv = function(words, ctx, eff)
  if #words == 0 then
    return nil
  end
  -- env -S 'cmd args' / --split-string: the string is a command line
  for k = 1, #words - 1 do
    if basename(words[k]) == "env" then
      for j = k + 1, #words - 1 do
        if words[j] == "-S" or words[j] == "--split-string" then
          local rule, detail = check_line(words[j + 1], ctx.depth + 1)
          if rule then
            return rule, detail
          end
        end
      end
      break
    end
  end
  local w = eff or unwrap(words)
  if #w == 0 then
    return nil
  end
  -- an alias's words, or those of a wrapper's command held by a variable
  -- (c="rm -rf"; sudo $c ~), stand for the command's name
  local head = ctx.aliases and ctx.aliases[w[1]]
  if not head and string.find(w[1], " ", 1, true) and re.match(w[1], "^\\S+( \\S+)+$") and not re.find(w[1], "\\$\\(|`") then
    head = {}
    for part in string.gmatch(w[1], "%S+") do
      head[#head + 1] = part
    end
  end
  if head then
    local nw = {}
    for _, x in ipairs(head) do
      nw[#nw + 1] = x
    end
    for k = 2, #w do
      nw[#nw + 1] = w[k]
    end
    w = unwrap(nw)
    if #w == 0 then
      return nil
    end
  end
  if decoded(w[1]) then
    return deny("run-decoded", "running text decoded by base64, xxd, rev or the like runs code unseen")
  end
  local name = basename(w[1])
  if SINKS[name] or SHELLS[name] or INTERP[name] then
    for k = 2, #w do
      if decoded(w[k]) then
        return deny("run-decoded", name .. " would run text decoded by base64, xxd, rev or the like, unseen")
      end
    end
  end
  local script = written_script(w)
  if script then
    local rule, detail
    if script.lang then
      rule, detail = check_code(script.lang, script.text, ctx)
    else
      rule, detail = check_line(script.text, (ctx.depth or 0) + 1)
    end
    if rule then
      return rule, detail
    end
  end
  -- a called body's command name computed from FUNCNAME that is not
  -- resolved ("${FUNCNAME[0]%_*}_x"): the handler denies the line when it
  -- names a program the pack checks
  if (ctx.fdepth or 0) > 0 and string.find(w[1], "FUNCNAME", 1, true) and string.find(w[1], "$", 1, true) then
    XST.over = true
  end
  -- command NAME and builtin NAME run no function (ls() { command ls
  -- "$@"; } calls the program, not itself)
  local body = ctx.funcs and ctx.funcs[w[1]]
  for k = 1, body and #words or 0 do
    if words[k] == w[1] then
      break
    end
    if words[k] == "command" or words[k] == "builtin" then
      body = nil
    end
  end
  if body then
    -- a function defined earlier on the line: what its body runs with
    -- these arguments (nothing new when it calls itself as it was called)
    local args = {}
    for k = 2, #w do
      args[#args + 1] = w[k]
    end
    if SUBST.same_call(ctx.frame, w[1], args, ctx.vars, ctx.arrays, ctx.cwd) then
      return nil
    end
    if (ctx.fdepth or 0) >= 8 then
      return deny("too-nested", "functions call each other too deeply to check")
    end
    local frame = SUBST.frame(ctx.frame, w[1], args, ctx.vars, ctx.arrays, ctx.cwd)
    -- the body runs with the variables and arrays set so far on the line
    -- (also those set after the definition), its own assignments, set --
    -- and shift (f() { local a=("$@"); "${a[@]}"; })
    local vars, arrays = {}, {}
    for k, v in pairs(ctx.vars or {}) do
      vars[k] = v
    end
    for k, v in pairs(ctx.arrays or {}) do
      arrays[k] = v
    end
    -- FUNCNAME: the function that runs, then its callers (${FUNCNAME[0]},
    -- $FUNCNAME, ${FUNCNAME[1]})
    local stack = { w[1] }
    for _, n in ipairs(arrays.FUNCNAME or {}) do
      stack[#stack + 1] = n
    end
    arrays.FUNCNAME, vars.FUNCNAME = stack, w[1]
    -- loops: a variable bound to several words (for d in "$@")
    local loops = {}
    local inner = setmetatable({ fdepth = (ctx.fdepth or 0) + 1, vars = vars, arrays = arrays, frame = frame }, { __index = ctx })
    local rule, detail = spend(ctx, #body)
    if rule then
      return rule, detail
    end
    -- a body that shifts (while [ $# -gt 0 ]; do rm -rf "$1"; shift;
    -- done) may run a command with each argument as $1
    local shifts = false
    for _, bc in ipairs(body) do
      if bc.words and bc.words[1] == "shift" then
        shifts = true
      end
    end
    -- derive gives the variable n, set to raw as written, one value per
    -- value of a loop variable raw names (for d in "$@"; do local
    -- t="$d"; ...), each counted against the line's checks
    local function derive(n, raw)
      if not (next(loops) and string.find(raw, "$", 1, true)) then
        return nil
      end
      for name, values in pairs(loops) do
        if name ~= n and string.find(raw, name, 1, true) and re.find(raw, [[\$\{?]] .. name .. [[\b]]) then
          local r, d = spend(ctx, #values)
          if r then
            return r, d
          end
          local keep, list = vars[name], {}
          for _, x in ipairs(values) do
            vars[name] = x
            list[#list + 1] = expand(positional({ raw }, args, arrays, vars), vars)[1] or ""
          end
          vars[name] = keep
          loops[n] = list
          return nil
        end
      end
      return nil
    end
    for _, bc in ipairs(body) do
      if type(bc.assigns) == "table" then
        for k, v in pairs(bc.assigns) do
          if type(v) == "string" then
            local vals = expand(positional({ v }, args, arrays, vars), vars)
            bind(vars, arrays, k, vals[1] or "")
            loops[k] = #vals > 1 and vals or nil
            if not loops[k] then
              rule, detail = derive(k, v)
              if rule then
                return rule, detail
              end
            end
          end
        end
      end
      local make = function()
        return expand(positional(bc.words, args, next(arrays) and arrays, vars, bc.bare or ctx.bare), vars, bc.bare or ctx.bare)
      end
      local bw = make()
      local bn = basename(bw[1])
      if bn == "set" and bw[2] and (bw[2] == "--" or not string.find(bw[2], "^[-+]")) then
        args = slice(bw, bw[2] == "--" and 2 or 1)
      elseif bn == "shift" then
        args = slice(args, tonumber(bw[2] or "1") or 1)
      elseif DECLARERS[bn] then
        for k = 2, #bw do
          local n, v = string.match(bw[k], "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
          if n then
            bind(vars, arrays, n, v)
            loops[n] = nil
            local raw = #bc.words == #bw and string.match(bc.words[k], "^[%a_][%w_]*=(.*)$")
            if raw then
              rule, detail = derive(n, raw)
              if rule then
                return rule, detail
              end
            end
          end
        end
      elseif (bn == "read" or bn == "readarray" or bn == "mapfile") and type(bc.redirects) == "table" then
        -- IFS=, read -ra a <<< "$1": the body's own reads
        read_array(bn, bw, bc.redirects, arrays, vars, loops, function(t, doc)
          if doc then
            return t
          end
          return subst(positional({ t }, args, arrays)[1] or t, vars)
        end)
      end
      if #bw > 0 then
        rule, detail = check_argv(bw, inner)
        if not rule and next(loops) then
          rule, detail = per_value(inner, loops, bc.words, vars, make)
        end
        if not rule and shifts and re.find(table.concat(bc.words, " "), [=[\$\{?[1-9]]=]) then
          local all = args
          for k = 1, #all - 1 do
            rule, detail = spend(ctx, 1)
            if not rule then
              args = slice(all, k)
              rule, detail = check_argv(make(), inner)
            end
            if rule then
              break
            end
          end
          args = all
        end
        if rule then
          return rule, detail
        end
      end
    end
  end
  local stripped = re.gsub(name, [[\.exe$]], "")
  if string.sub(stripped, 1, 5) == "mkfs." or string.sub(stripped, 1, 4) == "mkfs" then
    stripped = "mkfs"
  end
  local fn = H[stripped]
  if fn == nil then
    local base = re.gsub(stripped, [[[0-9.]+$]], "")
    fn = H[base]
    if fn == nil and (base == "python" or base == "pypy") then
      fn = interp
    end
  end
  if fn then
    local rule, detail = fn(w, ctx)
    if rule == "drop-database" and test_target(words, not C.env_cut(words) and ctx.assigns_now or nil, SUBST.env_of(ctx, words)) then
      rule = nil -- a test database is made to be dropped
    end
    if rule then
      return rule, detail
    end
  end
  if #P.extraPatterns > 0 then
    local text = table.concat(w, " ")
    for i, rx in ipairs(P.extraPatterns) do
      if re.find(text, rx) then
        return deny("extra-pattern", "the command matches extraPatterns[" .. i .. "]")
      end
    end
  end
  return nil
end

-- xargs_replace rewrites the replacement string of xargs -I R (-i,
-- --replace) in the command xargs runs to {}, where the checkers look for
-- the paths read from standard input.
local function xargs_replace(words)
  for k = 1, #words do
    if basename(words[k]) == "xargs" then
      local repl, j = nil, k + 1
      while j <= #words and string.sub(words[j], 1, 1) == "-" do
        local a = words[j]
        if a == "-I" then
          repl = words[j + 1]
          j = j + 1
        elseif string.sub(a, 1, 2) == "-I" then
          repl = string.sub(a, 3)
        elseif a == "-i" or a == "--replace" then
          repl = "{}"
        elseif string.sub(a, 1, 10) == "--replace=" then
          repl = string.sub(a, 11)
        end
        j = j + 1
      end
      if repl == nil or repl == "{}" then
        return words
      end
      local out = {}
      for m = 1, #words do
        out[m] = words[m]
        if m > j and words[m] == repl then
          out[m] = "{}"
        end
      end
      return out
    end
  end
  return words
end

-- SOURCE_NAMES are the programs whose output redirected to a file may be a
-- secret (see source): environment dumps, readers of files, token printers.
local SOURCE_NAMES = {
  env = true, printenv = true, export = true, declare = true, typeset = true, set = true,
  echo = true, printf = true, cat = true, base64 = true, tar = true, zip = true, gzip = true,
  xxd = true, head = true, tail = true, gpg = true, openssl = true, jq = true,
}
for _, tp in ipairs(TOKEN_PRINTERS) do
  SOURCE_NAMES[tp[1]] = true
end

-- remember_writes records what a command writes to files (see SCRIPTS
-- and COPIES): echo/printf text or a here-document redirected to a file,
-- a secret source's output, a copy of a credential file.
local function remember_writes(words, w, redirects)
  -- env alone unwraps to nothing: its own name then
  local name = basename(w[1] or words[1])
  if type(redirects) == "table" and #redirects > 0 then
    for _, r in ipairs(redirects) do
      if (r.op == ">" or r.op == ">>" or r.op == ">|") and type(r.target) == "string" then
        local f = norm(r.target) or ""
        local text = nil
        if name == "echo" or name == "printf" then
          local from = 2
          while name == "echo" and w[from] and re.match(w[from], "^-[neE]+$") do
            from = from + 1
          end
          text = E.unescape(table.concat(w, " ", from))
        elseif name == "cat" then
          for _, d in ipairs(redirects) do
            if (d.op == "<<" or d.op == "<<-") and type(d.body) == "string" then
              text = d.body
            elseif d.op == "<<<" and type(d.target) == "string" then
              text = d.target
            end
          end
        end
        if text then
          SCRIPTS[f] = (r.op == ">>" and (SCRIPTS[f] or "") .. "\n" or "") .. text
        end
        local what = P.exfiltration ~= "off" and SOURCE_NAMES[name] and source(words)
        if what then
          COPIES[f] = what
        end
      end
    end
  end
  if P.exfiltration ~= "off" and (name == "cp" or name == "install" or name == "mv" or name == "rsync") then
    local f = parse_flags(w, 2, "tS")
    local dest = f.vals.t or f.args[#f.args]
    for k = 1, #f.args - 1 do
      local kind = secret_path(f.args[k])
      if kind and dest then
        COPIES[norm(dest) or ""] = kind
      end
    end
  end
end

-- MAX_NESTING bounds how deep command strings inside command strings are
-- checked; a deeper one is denied rather than let through unread.
local MAX_NESTING = 5

-- loop_values is the list of for NAME in LIST that binds name for the
-- nth time on the line (the parser binds NAME to the first word only),
-- its words with arrays, "$@" and variables put in (a word that becomes
-- several, as $DIRS does, counts each); nil when no such header is found.
local function loop_values(line, name, nth, ctx, pargs)
  if not string.find(line, "for", 1, true) then
    return nil
  end
  local heads = re.findall(line, [[(?:^|[\s;&|({])for\s+]] .. name .. [[\s+in\s+[^;\n]*]])
  local head = heads and heads[nth]
  if not head then
    return nil
  end
  local _, _, list = re.find(head, [[\sin\s+(.*)$]])
  local words = split(list or "") or {}
  if pargs or next(ctx.arrays) then
    -- an array's elements may have been quoted strings with blanks
    -- (cmds=("rm -rf ~"): the parser gives their words): their text
    -- joined is one more value
    local joined = {}
    for _, w in ipairs(words) do
      local n = string.match(w, "^%${([%a_][%w_]*)%[[@*]%]}$")
      local elems = n and ctx.arrays[n]
      if elems and #elems > 1 then
        joined[#joined + 1] = table.concat(elems, " ")
      end
    end
    words = positional(words, pargs, next(ctx.arrays) and ctx.arrays)
    for _, j in ipairs(joined) do
      words[#words + 1] = j
    end
  end
  -- a value with blanks is taken whole ("rm -rf ~" run by eval "$c")
  -- and, as an unquoted $DIRS splits, word by word
  local out = {}
  -- (after a first word: expand splits a command name that has blanks)
  local lead = { ":" }
  for _, w in ipairs(words) do
    lead[#lead + 1] = w
  end
  local values = expand(lead, ctx.vars)
  for i = 2, #values do
    local w = values[i]
    out[#out + 1] = w
    -- (its words too when it has blanks)
    for x in string.gmatch(string.find(w, "%s") and w or "", "%S+") do
      out[#out + 1] = x
    end
  end
  return out
end

SUBST.check_line = function(line, depth)
  if type(line) ~= "string" or line == "" then
    return nil
  end
  depth = depth or 0
  if depth > MAX_NESTING then
    return deny("too-nested", "commands nested more than " .. MAX_NESTING .. " deep (a shell in a shell, eval, a program's command) are not checked")
  end
  if string.find(line, "IFS", 1, true) then
    line = re.gsub(line, [[\$\{?IFS\}?]], " ")
  end
  -- for NAME; do (for NAME do): a loop without a list runs over the
  -- positional parameters, as for NAME in "$@"
  line = listless_for(line)
  if (string.find(line, "curl", 1, true) or string.find(line, "wget", 1, true) or string.find(line, "iwr", 1, true) or string.find(line, "fetch", 1, true))
    and re.find(line, SUBST_FETCH) then
    -- a download inside $(...), <(...) or backticks, run by a shell
    local a = re.find(line, SUBST_FETCH)
    local before = string.sub(line, 1, a - 1)
    if re.find(before, SUBST_SINK) or re.find(before, [[(?i)(^|[\s;&|(])(ba|z|da|k)?sh\s*$]]) or re.find(before, [[(?i)(^|[\s;&|(])(source|eval|\.)\s*["']?$]]) then
      return deny("pipe-to-shell", "running a downloaded script unseen (a shell fed by curl or wget)")
    end
  end
  -- CMD < <(LISTER): what LISTER prints is CMD's standard input, as in
  -- LISTER | CMD (while read f; do rm -rf "$f"; done < <(find ~), mysql <
  -- <(echo 'DROP TABLE t'))
  if string.find(line, "<(", 1, true) then
    local _, _, cmd, lister = re.find(line, [[(?s)^(.*?)\s*<\s*<\(([^()]*)\)\s*$]])
    if cmd and cmd ~= "" and lister ~= "" then
      local rule, detail = check_line(lister .. " | " .. cmd, depth + 1)
      if rule then
        return rule, detail
      end
    end
  end
  local cmds = commands(line)
  -- envt: the variables exported so far (export RAILS_ENV=test && rails
  -- db:drop), made when a command first sets one; up: the ctx of the
  -- command that runs this line (RAILS_ENV=test bash -c '...'), whose
  -- environment SUBST.env_of reads as inherit
  local up = SUBST.env_ctx
  local bare, occ = bare_names(line)
  local ctx = { depth = depth, vars = {}, aliases = {}, funcs = {}, arrays = {}, budget = { n = 0 }, bare = bare,
    up = up }
  -- flags: per command, which words the shell splits (SUBST.word_flags)
  local flags = occ and SUBST.word_flags(cmds, occ, line)
  local vars, aliases, funcs, arrays = ctx.vars, ctx.aliases, ctx.funcs, ctx.arrays
  -- loops: the values of loop variables (for d in a b c); seen: how many
  -- loops bound each name so far
  local loops, seen = {}, {}
  -- NAME+=VALUE appends (a+=(rm); c+=' -rf ~'), but the parser gives it
  -- as NAME=VALUE: the line's assignments of a name it appends to are
  -- matched in order with the forms written
  local appends = {}
  -- a value is expanded when it is assigned (D=/; cmd="rm -rf $D"), as
  -- the shell does, within a length the line can give it
  local limit = 4 * string.len(line) + 4096
  -- over is the denial when the values made from loop variables spent
  -- the line's budget
  local over, over_detail = nil, nil
  -- doc_body is a here-document's text, expanded when its delimiter is
  -- not quoted (D=/; sh <<EOF ... rm -rf $D ... EOF); a delimiter written
  -- quoted anywhere on the line ('EOF', "EOF", \EOF) keeps it as written
  local function doc_body(r)
    local d = type(r.target) == "string" and r.target or ""
    if d == "" or string.find(line, "'" .. d .. "'", 1, true) or string.find(line, '"' .. d .. '"', 1, true) or string.find(line, "\\" .. d, 1, true) then
      return r.body
    end
    return subst(r.body, vars, limit)
  end
  local function remember(n, v)
    local raw = v
    v = subst(v, vars, limit)
    -- a value made from a loop variable takes a value per value of its
    -- list (for d in build ~; do t="$d"; rm -rf "$t"; done)
    loops[n] = nil
    if next(loops) and string.find(raw, "$", 1, true) then
      for name, values in pairs(loops) do
        if string.find(raw, name, 1, true) and re.find(raw, [[\$\{?]] .. name .. [[\b]]) then
          over, over_detail = spend(ctx, #values)
          if not over then
            local keep, list = vars[name], { v }
            for k = 2, #values do
              vars[name] = values[k]
              list[#list + 1] = subst(raw, vars, limit)
            end
            vars[name] = keep
            loops[n] = list
          end
          break
        end
      end
    end
    if string.find(line, n .. "+=", 1, true) then
      appends[n] = (appends[n] or 0) + 1
      local forms = re.findall(line, [[(?:^|[\s;&|({])]] .. n .. [[\+?=]])
      local f = forms and forms[appends[n]]
      if f and string.sub(f, -2) == "+=" then
        local elems = string.match(v, "^%((.*)%)$")
        if elems then
          local list = {}
          for _, x in ipairs(arrays[n] or { vars[n] }) do
            list[#list + 1] = x
          end
          for _, x in ipairs(split(elems) or {}) do
            list[#list + 1] = x
          end
          arrays[n] = list
          vars[n] = list[1] or ""
        else
          vars[n] = (vars[n] or "") .. v
        end
        return
      end
    end
    bind(vars, arrays, n, v)
  end
  local pipeline = {}
  local prev_doc = nil
  local self_pipe = nil
  for idx, c in ipairs(cmds) do
    if type(c.assigns) == "table" then
      for k, v in pairs(c.assigns) do
        if type(v) == "string" then
          remember(k, v)
          if over then
            return over, over_detail
          end
          if history_var(k, v) then
            return deny("history-wipe", k .. "=" .. v .. " would stop or wipe the shell history")
          end
        end
      end
      -- a for loop (a command of one assignment and no words): its
      -- variable takes every value of the list in turn
      local name = next(c.assigns)
      if (c.words == nil or #c.words == 0) and name and next(c.assigns, name) == nil then
        seen[name] = (seen[name] or 0) + 1
        local values = loop_values(line, name, seen[name], ctx, not (type(c.func) == "string" and c.func ~= "") and ctx.posargs or nil)
        if values and values[1] then
          vars[name] = values[1]
          loops[name] = #values > 1 and values or nil
        end
      end
    end
    if c.forkloop then
      return deny("fork-bomb", "an endless loop that starts commands in the background would fork without bound")
    end
    if type(c.func) == "string" and c.func ~= "" then
      -- a function that runs itself in a pipeline or in the background
      local me = basename(unwrap(c.words or {})[1])
      local self = me == c.func
      if self and (c.op == "|" or c.op == "&" or c.op == "|&" or self_pipe == c.func) then
        return deny("fork-bomb", "a function that runs itself in a pipeline or in the background would fork without bound")
      end
      self_pipe = (self and c.op == "|") and c.func or nil
    else
      self_pipe = nil
    end
    if type(c.func) == "string" and c.func ~= "" and ((type(c.words) == "table" and #c.words > 0) or type(c.assigns) == "table") then
      local body = funcs[c.func] or {}
      body[#body + 1] = { words = c.words, assigns = c.assigns, redirects = c.redirects, bare = SUBST.bare_of(ctx.bare, flags and flags[c]) }
      funcs[c.func] = body
    end
    local words = c.words or {}
    if type(c.func) == "string" and c.func ~= "" and string.find(table.concat(words, " "), "FUNCNAME", 1, true) then
      -- a body's own name ("${FUNCNAME[0]}_x", $FUNCNAME)
      local named = {}
      for k, x in ipairs(words) do
        named[k] = re.gsub(x, [[\$\{FUNCNAME(\[0\])?\}|\$FUNCNAME\b]], (string.gsub(c.func, "%$", "$$")))
      end
      words = named
    end
    -- set -- ARGS and arrays earlier on the line: "$@", $1, "${a[@]}" (a
    -- function's body has its own $1..)
    local pargs = not (type(c.func) == "string" and c.func ~= "") and ctx.posargs or nil
    -- which of its words the shell splits at blanks (bare_names, SUBST.word_flags)
    local cbare = SUBST.bare_of(ctx.bare, flags and flags[c])
    if pargs or next(arrays) then
      words = positional(words, pargs, next(arrays) and arrays, vars, cbare)
    end
    words = xargs_replace(expand(words, vars, cbare))
    ctx.envt = C.env_step(ctx.envt, cmds, idx)
    local first = basename(words[1])
    if first == "set" and words[2] and (words[2] == "--" or not string.find(words[2], "^[-+]")) then
      -- set -- ARGS (set ARGS): the positional parameters from here on;
      -- a "$@" among them is the ones before (none at first)
      local from = words[2] == "--" and 3 or 2
      local list = {}
      for k = from, #words do
        list[#list + 1] = words[k]
      end
      ctx.posargs = ctx.posargs and list or positional(list, {})
    elseif #words == 1 and string.find(words[1], "]=", 1, true) and string.match(words[1], "^[%a_][%w_]*%[[^%]]+%]=") then
      -- a[1]=/, m[key]=v: one element
      local n, key, v = string.match(words[1], "^([%a_][%w_]*)%[([^%]]+)%]=(.*)$")
      bind_element(arrays, n, key, v)
    elseif (first == "read" or first == "readarray" or first == "mapfile") and type(c.redirects) == "table" then
      read_array(first, words, c.redirects, arrays, vars, loops, function(t, doc)
        return doc and doc_body(doc) or subst(t, vars)
      end)
    elseif first == "shift" and ctx.posargs and not (type(c.func) == "string" and c.func ~= "") then
      ctx.posargs = slice(ctx.posargs, tonumber(words[2] or "1") or 1)
    elseif first == "export" or first == "declare" or first == "typeset" or first == "local" or first == "readonly" or first == "set" then
      local nameref = false
      for k = 2, #words do
        if re.match(words[k], "^-[a-zA-Z]*n[a-zA-Z]*$") then
          nameref = true
        end
      end
      for k = 2, #words do
        local n, v = string.match(words[k], "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
        if n then
          -- the value as written when it names a loop variable (declare
          -- t="$d" takes each of its values)
          local rv = next(loops) and type(c.words) == "table" and #c.words == #words and string.match(c.words[k], "^[%a_][%w_]*=(.*)$")
          local value = v
          if rv and string.find(rv, "$", 1, true) then
            for name in pairs(loops) do
              if re.find(rv, [[\$\{?]] .. name .. [[\b]]) then
                value = rv
                break
              end
            end
          end
          if nameref then
            -- declare -n NAME=OTHER: NAME reads OTHER when it is used
            vars[n] = "${" .. v .. "}"
          else
            remember(n, value)
          end
          if over then
            return over, over_detail
          end
          if history_var(n, v) then
            return deny("history-wipe", first .. " " .. n .. "=" .. v .. " would stop or wipe the shell history")
          end
        end
      end
    elseif first == "printf" and words[2] == "-v" and words[3] and words[4] then
      -- printf -v NAME FMT ARGS: NAME holds what printf would print
      local args = {}
      for k = 5, #words do
        args[#args + 1] = words[k]
      end
      remember(words[3], E.unescape(E.printf_fill(words[4], args)))
    elseif first == "alias" then
      for k = 2, #words do
        local n, v = string.match(words[k], "^([^=]+)=(.*)$")
        if n then
          aliases[n] = split(v)
        end
      end
    end
    -- a command that is a variable holding a whole command: CMD="rm -rf /"; $CMD
    pipeline[#pipeline + 1] = words
    ctx.stdin_paths, ctx.stdin_text, ctx.stdin_lister = nil, nil, nil
    if #pipeline > 1 then
      local prev = unwrap(pipeline[#pipeline - 1])
      local pn = basename(prev[1])
      if prev_doc then
        ctx.stdin_text = prev_doc
        ctx.stdin_paths = {}
        for x in string.gmatch(prev_doc, "%S+") do
          ctx.stdin_paths[#ctx.stdin_paths + 1] = x
        end
      elseif pn == "echo" or pn == "printf" then
        local from = 2
        while pn == "echo" and prev[from] and re.match(prev[from], "^-[neE]+$") do
          from = from + 1
        end
        ctx.stdin_text = E.unescape(table.concat(prev, " ", from))
        if pn == "printf" and prev[2] and string.find(prev[2], "%", 1, true) then
          -- printf FMT ARGS prints FMT with ARGS put in (printf %s 'rm -rf ~')
          local args = {}
          for k = 3, #prev do
            args[#args + 1] = prev[k]
          end
          ctx.stdin_text = E.unescape(E.printf_fill(prev[2], args))
        end
        ctx.stdin_paths = {}
        for k = 2, #prev do
          if string.sub(prev[k], 1, 1) ~= "-" then
            ctx.stdin_paths[#ctx.stdin_paths + 1] = prev[k]
          end
        end
      elseif pn == "find" or pn == "fd" then
        ctx.stdin_lister = prev
      elseif pn == "ls" then
        -- ls lists the entries of its operands (of . when there are none)
        ctx.stdin_paths = {}
        local f = parse_flags(prev, 2, "IwT")
        for _, a in ipairs(f.args) do
          ctx.stdin_paths[#ctx.stdin_paths + 1] = a .. "/*"
        end
        if #ctx.stdin_paths == 0 then
          ctx.stdin_paths[1] = "*"
        end
      end
      -- a download or a decoder upstream, a shell downstream
      local eff = unwrap(words)
      if sink(eff) then
        for k = 1, #pipeline - 1 do
          local up = unwrap(pipeline[k])
          if FETCHERS[basename(up[1])] or decoder(up) then
            return deny("pipe-to-shell", "piping a download or decoded text into " .. basename(eff[1]) .. " runs code unseen")
          end
        end
      end
    end
    -- ... | while read VAR: VAR is what a lister upstream lists
    local eff_now = unwrap(words)
    if basename(eff_now[1]) == "read" and #pipeline > 1 then
      local up = unwrap(pipeline[#pipeline - 1])
      local un = basename(up[1])
      if un == "find" or un == "fd" or un == "ls" then
        ctx.read_vars = ctx.read_vars or {}
        for k = 2, #eff_now do
          if string.sub(eff_now[k], 1, 1) ~= "-" then
            ctx.read_vars[eff_now[k]] = up
          end
        end
      end
    end
    -- here-strings and here-documents feed standard input too:
    -- xargs rm <<< "/", sh <<< "...", bash <<EOF ... EOF
    if type(c.redirects) == "table" then
      for _, r in ipairs(c.redirects) do
        local text = nil
        if r.op == "<<<" and type(r.target) == "string" then
          text = subst(r.target, vars, limit)
        elseif (r.op == "<<" or r.op == "<<-") and type(r.body) == "string" then
          text = doc_body(r)
        end
        if text then
          r = { target = text }
          ctx.stdin_text = r.target
          ctx.stdin_paths = {}
          for x in string.gmatch(r.target, "%S+") do
            ctx.stdin_paths[#ctx.stdin_paths + 1] = x
          end
        end
      end
    end
    -- a script piped or fed into a shell or an interpreter: echo 'rm -rf
    -- /' | sh, python3 - <<EOF ... EOF, tclsh <<< 'file delete ...'
    if ctx.stdin_text and sink(unwrap(words)) then
      local lang = interp_lang(basename(unwrap(words)[1]))
      local rule, detail
      if lang then
        rule, detail = check_code(lang, ctx.stdin_text, ctx)
      else
        rule, detail = check_line(ctx.stdin_text, depth + 1)
      end
      if rule then
        return rule, detail
      end
    end
    -- the command's own assignments (RAILS_ENV=test rails db:drop)
    ctx.assigns_now = c.assigns
    SUBST.env_ctx = ctx
    local rule, detail = check_argv(words, ctx, eff_now)
    if rule then
      ctx.assigns_now = nil
      return rule, detail
    end
    -- a command that uses a loop variable runs once per value of its list
    -- (for d in build ~; do rm -rf "$d"; done)
    if next(loops) and type(c.words) == "table" then
      rule, detail = per_value(ctx, loops, c.words, vars, function()
        local vw = c.words
        if pargs or next(arrays) then
          vw = positional(vw, pargs, next(arrays) and arrays, vars, cbare)
        end
        return xargs_replace(expand(vw, vars, cbare))
      end)
      if rule then
        ctx.assigns_now = nil
        return rule, detail
      end
    end
    ctx.assigns_now = nil
    rule, detail = exfiltration(eff_now, c.redirects, pipeline)
    if rule then
      return rule, detail
    end
    if #pipeline > 1 and SQLC[basename(eff_now[1])] then
      local upstream = {}
      for k = 1, #pipeline - 1 do
        upstream[k] = pipeline[k]
      end
      if generated_sql(upstream) then
        return deny("drop-database", basename(eff_now[1]) .. " would run the DROP, TRUNCATE or DELETE statements a query before it generates")
      end
    end
    if type(c.redirects) == "table" then
      for _, r in ipairs(c.redirects) do
        local op, target = r.op or "", r.target
        if type(target) == "string" and string.find(op, ">", 1, true) then
          target = expand({ target }, vars)[1]
          if device(target) then
            return deny("write-device", "redirecting output to the device " .. norm(target) .. " would overwrite it")
          end
          if op ~= ">>" and op ~= "&>>" and string.sub(target, 1, 5) ~= "/dev/" then
            local why = critical(target, false)
            if why then
              return deny("overwrite-critical", "redirecting output would overwrite " .. why)
            end
          end
        end
      end
    end
    remember_writes(words, eff_now, c.redirects)
    -- cat <<EOF | sh: the document is what the next stage reads
    prev_doc = nil
    if basename(unwrap(words)[1]) == "cat" and #unwrap(words) == 1 and type(c.redirects) == "table" then
      for _, r in ipairs(c.redirects) do
        if (r.op == "<<" or r.op == "<<-") and type(r.body) == "string" then
          prev_doc = doc_body(r)
        elseif r.op == "<<<" and type(r.target) == "string" then
          prev_doc = r.target
        end
      end
    end
    if c.op ~= "|" and c.op ~= "|&" then
      pipeline = {}
      prev_doc = nil
    end
    if first == "cd" or first == "pushd" then
      local dir = words[2]
      if dir == nil or dir == "" then
        dir = "~"
      end
      if dir ~= "-" then
        ctx.cwd = at(ctx, dir)
      end
    end
    local _ = idx
  end
  if #P.extraPatterns > 0 then
    for i, rx in ipairs(P.extraPatterns) do
      if re.find(line, rx) then
        return deny("extra-pattern", "the command matches extraPatterns[" .. i .. "]")
      end
    end
  end
  return nil
end

-- check_line is SUBST.check_line that gives back the command whose
-- environment a line started from its own runs (SUBST.env_ctx) when it
-- ends: a line run by another inherits that command's environment, not
-- the one a line run before it ended with.
check_line = function(line, depth)
  local up = SUBST.env_ctx
  local rule, detail = SUBST.check_line(line, depth)
  SUBST.env_ctx = up
  return rule, detail
end

-- SUBST.env_of is the environment (NAME=value words) of the command a
-- ctx checks: its own assignments, the variables the line exported
-- before it and the environment the line was given; with the command's
-- words, less what their wrappers clear or remove (env -i, env -u NAME,
-- sudo: monad.commands env_cut).
SUBST.env_of = function(ctx, words)
  local own = type(ctx.assigns_now) == "table" and ctx.assigns_now or nil
  local cleared, _, removed = false, 0, nil
  if words then
    cleared, _, removed = C.env_cut(words)
  end
  if cleared then
    return {}
  end
  -- the environment the line was given, read when first needed
  if ctx.inherit == nil and ctx.up then
    ctx.inherit = SUBST.env_of(ctx.up)
  end
  local list = C.env_list(ctx.envt, own, ctx.inherit)
  for k, v in pairs(own or {}) do
    list[#list + 1] = k .. "=" .. tostring(v)
  end
  if removed then
    local kept = {}
    for _, x in ipairs(list) do
      if not removed[string.match(x, "^([^=]*)=")] then
        kept[#kept + 1] = x
      end
    end
    list = kept
  end
  return list
end

-- NAMES and HIDING make a cheap prefilter: a line that names none of the
-- commands the rules know and has none of the characters that can hide a
-- command (quotes, backslashes, $, backticks, braces), no device path, no
-- redirection to an absolute path and no function definition cannot be
-- denied, and skips the parse. NAMES are the keys of NAMED and the words of
-- MORE_NAMES but ".", as a set built when triggers first needs it (a local
-- function that builds once): the prefilter's keyword set below is made
-- from them as a list, and building the set too was a fiftieth of
-- monad-hooks run (BenchmarkCLIRun).
local NAMED = { H, SINKS, FETCHERS, SENDERS }
local MORE_NAMES = {
  "base64", "base32", "basenc", "xxd", "openssl", "alias", "mkfs", "python", "pypy",
  -- loops that may fork without bound, variables of the shell history
  "while", "until", "for", "histfile", "histsize", "histfilesize", "savehist",
}
-- (and the cmdlets and Windows programs monad.pwsh checks, in NAME_SET's
-- one pass)
for _, n in ipairs(PW.NAMES) do
  MORE_NAMES[#MORE_NAMES + 1] = n
end
local NAMES = nil
local function names()
  if NAMES == nil then
    NAMES = {}
    for _, t in ipairs(NAMED) do
      for n in pairs(t) do
        NAMES[n] = true
      end
    end
    for _, n in ipairs(MORE_NAMES) do
      NAMES[n] = true
    end
    NAMES["."] = nil
  end
  return NAMES
end
-- HIDING is [\\$`'"{]|/dev/|>\s*[/~]|[<>]\(|\(\s*\)|IFS as a keyword set
-- (one Go pass) and two expressions run only when their first character
-- occurs: an RE2 alternation without a literal prefix cost more than the
-- rest of the prefilter (BenchmarkDefaultSetBeforeTool).
-- Both are items of one scan.any test (Go's matcher finds their literal
-- first byte before it tries them).
local scan = require("scan")
local HIDING = scan.any({
  scan.keywords({ "\\", "$", "`", "'", "\"", "{", "/dev/", "<(", ">(", "IFS" }),
  [=[>\s*[/~]]=], [=[\(\s*\)]=],
})
local function hiding(line)
  return HIDING:test(line)
end

-- NAME_SET: the words of NAMES (and mkfs) where a word of the line begins
-- (a keyword automaton in Go, BenchmarkDefaultSetBeforeTool): a line
-- without one cannot trigger, and skips the split below. NAME_LIST is
-- sorted, each word once.
local NAME_LIST = { "mkfs" }
for _, t in ipairs(NAMED) do
  for n in pairs(t) do
    NAME_LIST[#NAME_LIST + 1] = n
    -- and as Windows names them (git.exe, kubectl.exe)
    if not string.find(n, "[.-]") then
      NAME_LIST[#NAME_LIST + 1] = n .. ".exe"
    end
  end
end
for _, n in ipairs(MORE_NAMES) do
  NAME_LIST[#NAME_LIST + 1] = n
end
table.sort(NAME_LIST)
do
  local kept = 0
  for i = 1, #NAME_LIST do
    local n = NAME_LIST[i]
    if n ~= "" and n ~= "." and n ~= NAME_LIST[kept] then
      kept = kept + 1
      NAME_LIST[kept] = n
    end
  end
  for i = #NAME_LIST, kept + 1, -1 do
    NAME_LIST[i] = nil
  end
end
local NAME_SET = scan.any({ scan.keywords(NAME_LIST, { token = "[a-z0-9_.+-]" }) }, { lower = true })
NAME_LIST = nil

-- TRIGGERS is the hook's prefilter (hook{ prefilter }, a Go search that
-- skips the call without a VM, BenchmarkDefaultSetBeforeTool): triggers
-- is false for a line in which it finds nothing.
local TRIGGERS = scan.any({ HIDING, NAME_SET })

local function triggers(line)
  if hiding(line) then
    return true
  end
  if not NAME_SET:test(line) then
    return false
  end
  local lower = string.lower(line)
  local known = names()
  for _, w in ipairs(re.split(lower, "[^a-z0-9_.+-]+")) do
    if known[w] or string.sub(w, -4) == ".exe" and known[string.sub(w, 1, -5)] then
      return true
    end
    local last = string.byte(w, -1)
    if last ~= nil and ((last >= 48 and last <= 57) or last == 46) and known[(re.gsub(w, "[0-9.]+$", ""))] then
      return true
    end
    if string.sub(w, 1, 4) == "mkfs" then
      return true
    end
  end
  return false
end

-- names_rule_program says whether a word of line names a program the
-- rules check (rm, dd, git, ...) or one that runs text (sh, eval).
names_rule_program = function(line)
  for _, w in ipairs(re.split(string.lower(line), "[^a-z0-9_.+-]+")) do
    if H[w] or SINKS[w] or string.sub(w, 1, 4) == "mkfs" then
      return true
    end
  end
  return false
end

local function exempt(line)
  for _, rx in ipairs(P.exempt) do
    if re.find(line, rx) then
      return true
    end
  end
  return false
end

-- The handler proceeds on a line that is exempt or in which triggers
-- finds nothing, unless extraPatterns are set (they run on every line).
C.on_kind({ event = "BeforeTool", kind = "shell", matcher = P.matcher,
  prefilter = #P.extraPatterns == 0 and TRIGGERS or nil,
  texts = function(input) return command_texts(input.toolInput, P.commandFields) end },
  function(lines, input)
    local ready = false
    for _, line in ipairs(lines) do
      if not exempt(line) and (#P.extraPatterns > 0 or triggers(line)) then
        if not ready then
          -- the state of this call (only once a line needs checking)
          ready = true
          CWD, MAPS, SCRIPTS, COPIES = nil, nil, {}, {}
          if type(input.cwd) == "string" and string.sub(input.cwd, 1, 1) == "/" then
            CWD = clean(input.cwd)
          end
        end
        XST.over, SUBST.env_ctx = false, nil
        local rule, detail
        local dialect = PW.dialect(input.tool, line)
        if not (input.tool and input.tool.shell) then
          rule, detail = check_line(line, 0)
        end
        if not rule and dialect then
          rule, detail = check_pwsh(line, 0, dialect)
        end
        if not rule and XST.over and names_rule_program(line) then
          rule, detail = deny("too-complex", "the line builds values longer than the pack expands, and names a program it checks")
        end
        if rule == "exfiltrate" then
          return { decision = P.exfiltration, reason = PACK .. " [" .. rule .. "]: " .. detail .. "; ask the user first" }
        end
        if rule then
          return { decision = "deny", reason = PACK .. " [" .. rule .. "]: " .. detail .. "; if it is intended, ask the user to run it" }
        end
      end
    end
    return nil
  end)

-- The statements of a database tool (kind query) are checked as the SQL
-- given to a SQL client on a command line.
C.on_kind({ event = "BeforeTool", kind = "query" }, function(stmts, input)
  local runs_text = false
  for _, t in ipairs(stmts) do
    runs_text = runs_text or SQL.runs_text(t)
  end
  for _, t in ipairs(stmts) do
    local rule, detail = sql_check(input.toolName or "the tool", t, runs_text)
    if rule then
      return { decision = "deny", reason = PACK .. " [" .. rule .. "]: " .. detail .. "; if it is intended, ask the user to run it" }
    end
  end
  return nil
end)
