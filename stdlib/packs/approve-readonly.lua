--- pack: approve-readonly
--- summary: Auto-approve read-only tools and shell commands at the approval gate; defer everything else.
--- events: ApprovalRequest
--- kinds: read, shell
---
--- At the approval gate (`ApprovalRequest`) it answers `allow` for:
---
--- - tools of kind `read` in the engine's tool table (`Read`, `Glob`,
---   `Grep`, `LS`, `read_file`, `list_directory`, `view`, `ls`, ...) and
---   tools listed in `tools`, unless a path names a device (`/dev/sda`,
---   `/proc/PID/mem`; `/dev/null`, `/dev/urandom` and the like are fine);
--- - shell commands (the tools of kind `shell`) whose every simple command is
---   read-only: `ls`, `cat`, `head`, `tail`, `wc`, `pwd`, `echo`,
---   `printf`, `grep`/`rg`/`ag` (without `--pre`, a `--pager` or rg's
---   `--hostname-bin`, which run programs), `find` (without
---   `-delete`, `-exec`, `-execdir`, `-ok`, `-fprint*`, `-fls`), `file`
---   (without `-C`), `stat`, `du`, `df`, `tree` (without `-o` or `-R`),
---   `which`, `uname`, `whoami`, `id`, `date` (without `-s` or a new time), `hostname`
---   (without a new name), `sort`/`uniq` (without an output file or
---   sort's `--compress-program`), `cut`, `tr`, `diff`, `cmp`,
---   `jq`, `basename`, `dirname`, `realpath`, `md5sum`/`sha*sum`, `xxd`
---   (without `-r`), `xargs` running one of these, and read-only `git`
---   (`status`, `diff`, `log`, `show`, `blame`, `ls-files`, `rev-parse`,
---   `describe`, `shortlog`, `grep` without `-O`, `branch` and `tag` that only list,
---   `remote -v`, `config --get|--list`, `stash list`), plus `commands`.
---
--- A PowerShell line (a tool whose commands are PowerShell, such as Claude
--- Code's `PowerShell`, or an argv of `powershell -Command`; a line sent as
--- POSIX that names what only PowerShell runs, when it has no backtick,
--- backslash before a quote or `$'`, which a POSIX shell reads otherwise)
--- is approved only when every command is a cmdlet that reads
--- (`Get-ChildItem`, `Get-Content`, `Select-String`, `Get-Location`,
--- `Test-Path`, `Get-Item`, `Measure-Object`, `Get-Command`,
--- `Select-Object`, `Where-Object` and `ForEach-Object` with a block of
--- comparisons, `Format-Table`, ...; aliases such as `gci`, `gc`, `sls`,
--- `?`, `%` included) or a program the list above approves with the same
--- words (`git status`), with no redirection but to `$null` or `2>&1`, no
--- `-Command` or `-EncodedCommand`, no `&` or `.` invocation, no
--- variable, splatting (`@params`), provider drive (`env:`, `HKLM:`) or
--- secret file (`~\.ssh\id_rsa`, `.env`) among its arguments, and no
--- expression but comparisons inside a block (`$_.Delete()` is a call).
---
--- A command is named bare (`ls`) or by its path in `/bin`, `/usr/bin`,
--- `/usr/local/bin`, `/sbin`, `/usr/sbin` or `/opt/homebrew/bin`, in its
--- own case (`./ls`, `bin/git`, `LS` run some other file), optionally
--- behind `timeout`, `nice`, `time -p`, `command` or `stdbuf`; `xargs` runs
--- only commands no argument makes act (`cat`, `grep`, `wc`, ...).
--- Options count abbreviated (`sort --out=F` is `--output=F`).
---
--- It never approves a command line that contains anything else: a
--- command not on the list, an output redirection (`>`, `>>`; `2>&1` and
--- `> /dev/null` are fine), `/dev/tcp`, `/dev/udp` or another device, a variable
--- assignment (which could change what a program runs, e.g.
--- `GIT_EXTERNAL_DIFF=`), `printf -v`, `sudo` or another wrapper, `git -c`,
--- `git ... --output`, `sed`/`awk` (which can write and run programs), an
--- argument of a command that some argument makes act (`find`, `git`,
--- `sort`, `rg`, ...) chosen by an expansion (`$(...)`, `${X:-...}`,
--- `$_`) or by an unquoted glob outside a pattern option, or a line the
--- shell module cannot parse (or that passes its limits). For everything
--- it does not approve it returns nothing, so the human gate (or another
--- hook) decides; it never denies.

local re = require("re")

local PACK = "approve-readonly"

local SPEC = {
  -- Tool names approved outright: tools that only read.
  tools = { "[]string", { "read_file", "list_dir", "list_directory", "list_files", "grep", "glob", "search", "file_search", "codebase_search", "view_file", "Read", "Glob", "Grep", "LS" } },
  -- Deprecated (declare the tool with kind shell instead): RE2 matched against the names of tools the tool table does not know, whose input is a shell command.
  matcher = { "regex", "" },
  -- Deprecated: the fields of toolInput that hold the command of the tools matcher names.
  commandFields = { "[]string", { "command", "cmd", "commands", "script" } },
  -- Extra command names that count as read-only.
  commands = { "[]string", {} },
}

local P = require("monad.params").check(PACK, SPEC, params)

-- The shared command-line helpers (stdlib/lib/commands.lua): the simple
-- commands of a line and the words of a string (the host shell module), the
-- command strings of a tool input, and a command's words seen through
-- wrappers and flags.
local C = require("monad.commands")
local commands, split = C.commands, C.split
local command_texts, parse_flags = C.command_texts, C.parse_flags

local TOOLS = {}
for _, t in ipairs(P.tools) do
  TOOLS[t] = true
end

local SIMPLE = {
  ls = true, cat = true, head = true, tail = true, wc = true, pwd = true, echo = true,
  printf = true, file = true, stat = true, du = true, df = true, tree = true, which = true,
  whereis = true, uname = true, whoami = true, id = true, date = true, hostname = true,
  cut = true, tr = true, diff = true, cmp = true, basename = true, dirname = true,
  realpath = true, readlink = true, md5sum = true, sha1sum = true, sha256sum = true,
  sha512sum = true, shasum = true, cksum = true, nl = true, column = true, ["true"] = true,
  ["false"] = true, test = true, ["["] = true, type = true, less = false, more = false,
  jq = true, yq = false, od = true, hexdump = true, strings = true, comm = true, fold = true,
  rev = true, seq = true, expr = true, printenv = false, env = false, uptime = true,
  nproc = true, free = true, ps = true, lsof = false, tac = true, zcat = true, bat = true,
  egrep = true, fgrep = true, grep = true, rg = true, ag = true, ack = true, zgrep = true,
  find = true, fd = true, sort = true, uniq = true, xxd = true, git = true, xargs = true,
  cd = true, sleep = true,
}
for _, c in ipairs(P.commands) do
  SIMPLE[c] = true
end

local GIT_RO = {
  status = true, diff = true, log = true, show = true, blame = true, ["ls-files"] = true,
  ["ls-tree"] = true, ["rev-parse"] = true, describe = true, shortlog = true, grep = true,
  ["cat-file"] = true, ["rev-list"] = true, ["merge-base"] = true, ["name-rev"] = true,
  ["show-ref"] = true, reflog = false, whatchanged = true, ["for-each-ref"] = true,
}

-- ACTS lists, for commands of SIMPLE, the options that make them write a
-- file, change the system or run another program: long names (with or
-- without =VALUE), short letters (alone or in a cluster such as -us) and,
-- with operands, an operand (any, or one that matches the Lua pattern:
-- hostname NAME sets the name, date MMDDhhmm the clock); values are the
-- short options whose value is the next word, which is no operand.
local ACTS = {
  rg = { long = { pre = true, ["hostname-bin"] = true } },
  grep = { long = { pre = true } },
  ag = { long = { pre = true, pager = true } },
  -- ack's --output is a Perl expression; --ackrc reads options (--pager) from a file
  ack = { long = { pager = true, output = true, ackrc = true } },
  bat = { long = { pager = true } },
  -- printf -v NAME assigns a variable (PATH, or a[$(cmd)], which runs cmd)
  printf = { short = "v" },
  sort = { long = { output = true, ["compress-program"] = true }, short = "o" },
  tree = { short = "oR" },
  date = { long = { set = true }, short = "s", operands = "^[^+]", values = "dfr" },
  file = { long = { compile = true }, short = "C" },
  hostname = { long = { file = true, boot = true }, short = "Fb", operands = true },
}

-- abbreviates says whether the long option name (without its dashes)
-- is one of names or a prefix of one: getopt_long, git's parse-options,
-- Perl's Getopt::Long (ack) take any unambiguous prefix (sort --out=F is
-- --output=F).
local function abbreviates(name, names)
  if name == "" then
    return false
  end
  for full in pairs(names) do
    if string.sub(full, 1, string.len(name)) == name then
      return true
    end
  end
  return false
end

-- acts says whether words w of a command of ACTS name one of its acting
-- options (or, for hostname, an operand).
local function acts(name, w)
  local a = ACTS[name]
  if a == nil then
    return false
  end
  local function operand(x)
    return a.operands == true or (type(a.operands) == "string" and string.find(x, a.operands) ~= nil)
  end
  local k, ended = 2, false
  while k <= #w do
    local x = w[k]
    local long = string.match(x, "^%-%-([^=]+)")
    if ended or x == "-" or string.sub(x, 1, 1) ~= "-" then
      if operand(x) then
        return true
      end
    elseif x == "--" then
      ended = true
    elseif long then
      if a.long and abbreviates(long, a.long) then
        return true
      end
    else
      for j = 2, string.len(x) do
        local c = string.sub(x, j, j)
        if a.short and string.find(a.short, c, 1, true) then
          return true
        end
        if a.values and string.find(a.values, c, 1, true) then
          if j == string.len(x) then
            k = k + 1 -- the value is the next word
          end
          break
        end
      end
    end
    k = k + 1
  end
  return false
end

-- GIT_ACTS are git's long options that write a file or run a program,
-- after any subcommand (also abbreviated: git log --outp=F).
local GIT_ACTS = {
  output = true, ["ext-diff"] = true, textconv = true, exec = true,
  ["upload-pack"] = true, ["open-files-in-pager"] = true, filters = true,
}

-- GIT_CONFIG_WRITES are the actions of git config that write.
local GIT_CONFIG_WRITES = {
  add = true, unset = true, ["unset-all"] = true, ["replace-all"] = true,
  ["rename-section"] = true, ["remove-section"] = true, edit = true,
}

-- XARGS_SAFE are the commands xargs may run: none of their options writes
-- or runs a program, so no argument from the input can make them act.
local XARGS_SAFE = {
  ls = true, cat = true, head = true, tail = true, wc = true, echo = true,
  grep = true, egrep = true, fgrep = true, stat = true, du = true,
  basename = true, dirname = true, realpath = true, readlink = true,
  md5sum = true, sha1sum = true, sha256sum = true, sha512sum = true,
  shasum = true, cksum = true, nl = true, strings = true, od = true,
  hexdump = true, tac = true, zcat = true, cut = true, tr = true,
  diff = true, cmp = true, jq = true, ["true"] = true,
}

-- words_from returns the words of w from the i-th on.
local function words_from(w, i)
  local out = {}
  for k = i, #w do
    out[#out + 1] = w[k]
  end
  return out
end

-- xargs_command returns the command xargs runs (its words) and the
-- replace string (-I R, -iR, --replace=R), or nil when an option is not
-- understood. -i, -l, -e take only an attached value (xargs -l rm runs rm).
local function xargs_command(w)
  local i, replace = 2, nil
  while i <= #w do
    local a = w[i]
    if a == "--" then
      i = i + 1
      break
    end
    if string.sub(a, 1, 1) ~= "-" or a == "-" then
      break
    end
    if string.sub(a, 1, 2) == "--" then
      local name, val = string.match(a, "^%-%-([^=]+)=?(.*)$")
      if name == "replace" or name == "replace-str" then
        replace = val ~= "" and val or "{}"
      elseif not re.match(name, "^(null|arg-file|delimiter|max-args|max-lines|max-procs|max-chars|eof|no-run-if-empty|verbose|interactive|open-tty|exit|show-limits|process-slot-var)$") then
        return nil
      elseif string.find(a, "=", 1, true) == nil and re.match(name, "^(arg-file|delimiter|max-args|max-procs|max-chars|process-slot-var)$") then
        i = i + 1 -- the value is the next word
      end
    else
      local c = string.sub(a, 2, 2)
      local v = string.sub(a, 3)
      if string.find("aEdILnPs", c, 1, true) then
        if v == "" then
          i = i + 1
          v = w[i] or ""
        end
        if c == "I" then
          replace = v
        end
      elseif c == "i" then
        replace = v ~= "" and v or "{}"
      elseif not string.find("lertxop0", c, 1, true) then
        return nil
      elseif v ~= "" and not string.find("le", c, 1, true) and not re.match(v, "^[rtxop0]*$") then
        return nil
      end
    end
    i = i + 1
  end
  if replace == "" then
    return nil
  end
  return words_from(w, i), replace
end

-- SYSTEM_DIRS are the directories a command may be named in by path:
-- ./ls, bin/cat or ~/x/git run whatever file is there.
local SYSTEM_DIRS = {
  ["/bin"] = true, ["/usr/bin"] = true, ["/usr/local/bin"] = true, ["/sbin"] = true,
  ["/usr/sbin"] = true, ["/opt/homebrew/bin"] = true,
}

-- program returns the name of the program a command word runs, or ""
-- when the word names a file outside the system's directories or is
-- written in another case (LS is not ls on a case-sensitive disk).
local function program(word)
  local dir, name = string.match(word or "", "^(.*)/([^/]*)$")
  if dir ~= nil and not SYSTEM_DIRS[dir] then
    return ""
  end
  name = name or word or ""
  if name ~= string.lower(name) then
    return ""
  end
  return name
end

-- readonly says whether one simple command (its words, unwrapped) only reads.
local function readonly(w)
  local name = program(w[1])
  if not SIMPLE[name] or acts(name, w) then
    return false
  end
  if name == "bat" and w[2] == "cache" then
    return false -- bat cache --build|--clear writes bat's cache
  end
  if name == "find" then
    for k = 2, #w do
      if re.match(w[k], "^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$") then
        return false
      end
    end
  elseif name == "fd" then
    -- -x/-X run a program, also in a cluster (fd -Hx rm); the letters
    -- after one that takes a value are that value (fd -tx: executables)
    for k = 2, #w do
      local x = w[k]
      if x == "--" then
        break
      end
      if re.match(x, "^--exe") then
        return false
      end
      if re.match(x, "^-[^-]") then
        for j = 2, string.len(x) do
          local c = string.sub(x, j, j)
          if c == "x" or c == "X" then
            return false
          end
          if string.find("tedEcjSo", c, 1, true) then
            break
          end
        end
      end
    end
  elseif name == "sort" or name == "uniq" then
    local f = parse_flags(w, 2, "otkS")
    if f.vals.o or f.l.output or (name == "uniq" and #f.args > 1) then
      return false
    end
  elseif name == "xxd" then
    for k = 2, #w do
      if string.sub(w[k], 1, 2) == "-r" or w[k] == "--revert" then
        return false
      end
    end
    local f = parse_flags(w, 2, "cgloms")
    if #f.args > 1 then
      return false
    end
  elseif name == "xargs" then
    local inner, replace = xargs_command(w)
    if inner == nil then
      return false
    end
    if #inner == 0 then
      return true -- xargs alone runs echo
    end
    -- the input becomes arguments (or, through the replace string, any
    -- word): the command must be one that no argument makes act, and
    -- its name must not hold the replace string
    local iname = inner[1]
    if not XARGS_SAFE[iname] or (replace and string.find(iname, replace, 1, true)) then
      return false
    end
    return readonly(inner)
  elseif name == "test" or name == "[" then
    -- -v NAME and -R NAME evaluate an array subscript: a[$(cmd)] runs cmd
    for k = 2, #w - 1 do
      if (w[k] == "-v" or w[k] == "-R") and not re.match(w[k + 1], "^[A-Za-z_][A-Za-z0-9_]*$") then
        return false
      end
    end
  elseif name == "git" then
    local i = 2
    while i <= #w and string.sub(w[i], 1, 1) == "-" do
      if w[i] == "-c" or string.sub(w[i], 1, 8) == "--config" or w[i] == "--exec-path" or string.sub(w[i], 1, 12) == "--exec-path=" then
        return false
      end
      if w[i] == "-C" then
        i = i + 1
      end
      i = i + 1
    end
    local sub = w[i]
    local rest = {}
    for k = i + 1, #w do
      rest[#rest + 1] = w[k]
      local long = string.match(w[k], "^%-%-([^=]+)")
      if long and abbreviates(long, GIT_ACTS) then
        return false
      end
      -- git grep -O[PAGER] opens the files found in a pager (any program)
      if sub == "grep" and re.match(w[k], "^-[A-Za-z]*O") then
        return false
      end
    end
    if GIT_RO[sub] then
      return true
    end
    if sub == "branch" or sub == "tag" then
      for _, a in ipairs(rest) do
        if re.match(a, "^(-[dDmMcCfu]|--delete|--move|--copy|--force|--set-upstream-to|--unset-upstream|--edit-description|-a$|-s$|--annotate|--sign)") and not (sub == "branch" and a == "-a") then
          return false
        end
      end
      for _, a in ipairs(rest) do
        if string.sub(a, 1, 1) ~= "-" then
          -- a name creates a branch or tag, unless it follows --list/-l
          local listing = false
          for _, b in ipairs(rest) do
            if b == "--list" or b == "-l" or b == "--contains" or b == "--merged" or b == "--no-merged" or b == "--points-at" then
              listing = true
            end
          end
          return listing
        end
      end
      return true
    end
    if sub == "remote" then
      return #rest == 0 or (#rest == 1 and rest[1] == "-v") or rest[1] == "show" or rest[1] == "get-url"
    end
    if sub == "config" then
      -- a read action (--get..., --list, or git 2.46's get and list) and
      -- no action that writes, in any order or abbreviation
      -- before any name (git config NAME VALUE --get sets NAME)
      local reads = false
      local first
      local k = 1
      while k <= #rest do
        local a = rest[k]
        local long = string.match(a, "^%-%-([^=]+)")
        if a == "-e" or (long and abbreviates(long, GIT_CONFIG_WRITES)) then
          return false
        end
        if first == nil and (a == "-l" or (long and re.match(long, "^(get|get-all|get-regexp|get-urlmatch|list)$"))) then
          reads = true
        end
        if a == "-f" or (long and not string.find(a, "=", 1, true) and re.match(long, "^(file|blob|type|default)$")) then
          k = k + 1 -- the value is the next word
        elseif first == nil and string.sub(a, 1, 1) ~= "-" then
          first = a
        end
        k = k + 1
      end
      if first == "get" or first == "list" then
        return true
      end
      return reads and first ~= "set" and first ~= "unset" and first ~= "edit" and first ~= "rename-section" and first ~= "remove-section"
    end
    if sub == "stash" then
      return rest[1] == "list" or rest[1] == "show"
    end
    return false
  end
  return true
end

-- SAFE_WRAPPERS run the command of their arguments and do nothing else
-- (no file, no other user, no other root): for each, the short options
-- whose value is the next word (or the rest of the word), the long
-- options allowed (a value after =), and whether an operand comes before
-- the command (timeout DURATION). Other wrappers (sudo, env -S, strace -o,
-- time -o, flock, nohup, chroot, ...) are never approved.
local SAFE_WRAPPERS = {
  timeout = { takes = "sk", flags = "v", long = "^(signal|kill%-after|preserve%-status|foreground|verbose)$", operand = true },
  nice = { takes = "n", flags = "", long = "^(adjustment)$", digits = true },
  time = { takes = "", flags = "p", long = "^$" },
  command = { takes = "", flags = "pvV", long = "^$" },
  stdbuf = { takes = "ioe", flags = "", long = "^(input|output|error)$" },
}

-- strip_wrappers returns the words of the command that words run through
-- the wrappers of SAFE_WRAPPERS, or nil when a wrapper or one of its
-- options is not one of those.
local function strip_wrappers(words)
  local i, n = 1, #words
  while i <= n do
    local spec = SAFE_WRAPPERS[program(words[i])]
    if spec == nil then
      break
    end
    i = i + 1
    while i <= n and string.sub(words[i], 1, 1) == "-" and words[i] ~= "-" do
      local a = words[i]
      i = i + 1
      if a == "--" then
        break
      end
      local long = string.match(a, "^%-%-([^=]+)")
      if long then
        if not string.find(long, spec.long) then
          return nil
        end
      elseif spec.digits and re.match(a, "^-[0-9]+$") then
        -- nice -10
      else
        for j = 2, string.len(a) do
          local c = string.sub(a, j, j)
          if string.find(spec.takes, c, 1, true) then
            if j == string.len(a) then
              i = i + 1
            end
            break
          elseif not string.find(spec.flags, c, 1, true) then
            return nil
          end
        end
      end
    end
    if spec.operand then
      i = i + 1
    end
  end
  return words_from(words, i)
end

-- RISKY are the commands that some argument makes write or run a program
-- (an option, or uniq's and xxd's second file, hostname's and date's
-- operand): an argument whose text is not known before the shell expands
-- it ($(cmd), `cmd`, ${X:-...}, $_, an unquoted glob that a file name
-- starting with - could match) could be that argument. For each, the
-- options whose value may be a glob (find -name '*.go').
local RISKY = {
  find = { name = true, iname = true, path = true, ipath = true, wholename = true, iwholename = true, lname = true, ilname = true, regex = true, iregex = true },
  fd = { e = true, E = true, g = true, extension = true, exclude = true, glob = true },
  rg = { g = true, glob = true, iglob = true, t = true, type = true, T = true, ["type-not"] = true },
  ag = { G = true, ["file-search-regex"] = true, ignore = true },
  ack = {}, bat = {}, sort = {}, uniq = {}, xxd = {}, git = {}, date = {}, hostname = {},
  tree = { P = true, I = true }, file = {}, printf = {}, test = {}, ["["] = {}, xargs = {},
}

-- NO_GLOB_AT_ALL are the RISKY commands a second file makes write: a glob
-- that matches two files is an output.
local NO_GLOB_AT_ALL = { uniq = true, xxd = true, hostname = true, date = true }

-- KNOWN_VARIABLES are the variables whose value the line cannot choose
-- and that hold no blank: not IFS (x$IFS-delete is two words), not
-- BASH_COMMAND (the line itself), not $_ (the last word of the command
-- before), nor one an earlier call may have set.
local KNOWN_VARIABLES = {
  HOME = true, PWD = true, OLDPWD = true, USER = true, LOGNAME = true,
  TMPDIR = true, HOSTNAME = true,
}

-- REV_PARSE_OPTIONS are the options of git rev-parse that print a commit,
-- a branch or a path (it prints any other option it is given: git
-- rev-parse --flags -delete prints -delete).
local REV_PARSE_OPTIONS = {
  ["--show-toplevel"] = true, ["--show-prefix"] = true, ["--show-cdup"] = true,
  ["--git-dir"] = true, ["--abbrev-ref"] = true, ["--short"] = true,
  ["--verify"] = true, ["-q"] = true, ["--quiet"] = true,
}

-- known_expansions removes from a word the expansions whose value the
-- line cannot choose: $NAME and ${NAME} of KNOWN_VARIABLES, $(git
-- merge-base ...) and $(git rev-parse ...) with REV_PARSE_OPTIONS, which
-- print names of commits and paths; what is left holds $ or ` when
-- another expansion is there.
local function known_expansions(x)
  x = string.gsub(x, "%$%(git merge%-base[%w%s%-%./~%^@{}:_]*%)", "")
  x = string.gsub(x, "%$%(git rev%-parse([%w%s%-%./~%^@{}:_]*)%)", function(args)
    for a in string.gmatch(args, "%S+") do
      if string.sub(a, 1, 1) == "-" and not REV_PARSE_OPTIONS[a] then
        return nil
      end
    end
    return ""
  end)
  x = string.gsub(x, "%${([A-Za-z_][A-Za-z0-9_]*)}", function(v)
    return KNOWN_VARIABLES[v] and "" or nil
  end)
  x = string.gsub(x, "%$([A-Za-z_][A-Za-z0-9_]*)", function(v)
    return KNOWN_VARIABLES[v] and "" or nil
  end)
  return x
end

-- could_be_option says whether a glob word could match a file name that
-- starts with - (the shell would pass it as an option): one that starts
-- with a glob, or with - and a glob before any = (-de* is -delete;
-- --glob=*.go stays --glob).
local function could_be_option(x)
  local c = string.sub(x, 1, 1)
  if c == "*" or c == "?" or c == "[" then
    return true
  end
  if c ~= "-" then
    return false
  end
  local g, eq = string.find(x, "[%*%?%[]"), string.find(x, "=", 1, true)
  return eq == nil or g < eq
end

-- QUOTED_CALLS bounds the calls of quoted for one line.
local QUOTED_CALLS = 64

-- BOUNDARY are the characters that end a word of the line.
local BOUNDARY = "[%s%(%);|&<>]"

-- quoted says whether every occurrence of the text of word x in the raw
-- line is one whole word between quotes ('*.go' or "*.go", between
-- blanks or operators), and there is one: the words have their quotes
-- resolved, and a scan of the quotes that is not the shell's own can be
-- misled (echo "$(echo '"')"; find * hides the * from a simple scan);
-- the text of a word that the line spells otherwise ("x"'*', $'\x2a',
-- ''*'') is not there as such.
local function quoted(line, x, budget)
  -- each call reads the line: past QUOTED_CALLS calls a glob counts as
  -- unquoted, so that a line of many globs costs a bounded multiple of
  -- its length (and is not approved)
  budget.calls = budget.calls + 1
  if budget.calls > QUOTED_CALLS then
    return false
  end
  local n, wrapped, from = 0, 0, 1
  local len = string.len(x)
  if len == 0 then
    return false
  end
  while true do
    local i = string.find(line, x, from, true)
    if i == nil then
      break
    end
    n = n + 1
    local q = string.sub(line, i - 1, i - 1)
    if (q == "'" or q == '"') and string.sub(line, i + len, i + len) == q then
      local before = i - 2 < 1 and " " or string.sub(line, i - 2, i - 2)
      local after = string.sub(line, i + len + 1, i + len + 1)
      if string.find(before, BOUNDARY) and (after == "" or string.find(after, BOUNDARY)) then
        wrapped = wrapped + 1
      end
    end
    from = i + 1
  end
  return n > 0 and wrapped == n
end

-- arguments_known says whether no argument of a RISKY command (w, its
-- name) is chosen by an expansion, or by a glob or a brace the line does
-- not quote (see quoted). Words after -- are operands, except for find.
local function arguments_known(name, w, line, budget)
  local values = RISKY[name]
  if values == nil then
    return true
  end
  for k = 2, #w do
    local x = w[k]
    if x == "--" and name ~= "find" and name ~= "test" and name ~= "[" then
      -- operands only; a glob may still be two files
      for j = k + 1, #w do
        if NO_GLOB_AT_ALL[name] and string.find(w[j], "[%*%?%[{]") and not quoted(line, w[j], budget) then
          return false
        end
      end
      return true
    end
    if string.find(known_expansions(x), "[%$`]") then
      return false
    end
    if string.find(x, "[%*%?%[{]") and not quoted(line, x, budget) then
      -- {-delete,-print} is two words
      if re.find(x, "\\{[^}]*(,|\\.\\.)[^}]*\\}") then
        return false
      end
      local prev = string.match(w[k - 1], "^%-%-?(.+)$")
      if string.find(x, "[%*%?%[]") and (NO_GLOB_AT_ALL[name] or (could_be_option(x) and not (prev and values[prev]))) then
        return false
      end
    end
  end
  return true
end

-- arithmetic_known says whether the arithmetic a text makes the shell
-- evaluate holds no array subscript, substitution or quote: $(( a[$(cmd)]
-- )), $(( $(cat f) )) and ${a['x[$(cmd)]']} (a subscript is arithmetic)
-- run cmd. A ${...} with a quote inside, ${X@P} (a prompt: $(...) in the
-- value runs) and $[...] are refused too.
local function arithmetic_known(x)
  for body in string.gmatch(x, "%$%(%((.-)%)%)") do
    if string.find(body, "[%[`'\"]") or string.find(body, "$(", 1, true) then
      return false
    end
  end
  if string.find(x, "%${[^'\"}]*['\"]") or string.find(x, "%${[#!]?[%w_]*%[[^%]]*[%$`]") or string.find(x, "%${[^}]*@P") then
    return false
  end
  return not string.find(x, "$[", 1, true)
end

-- DEVICES_READ are the devices a command may name: reading any other
-- (/dev/sda, /dev/mem, /dev/input/...) reads a disk, memory or input
-- past the files' permissions.
local DEVICES_READ = {
  null = true, stdin = true, stdout = true, stderr = true, urandom = true,
  random = true, zero = true, tty = true,
}

-- named_device says whether a path names a device other than
-- DEVICES_READ, or the memory of a process or of the kernel
-- (/proc/PID/mem, /proc/kcore).
local function named_device(path)
  local dev = string.match(path, "^/dev/(.*)$")
  if dev ~= nil then
    return not DEVICES_READ[dev] and not re.match(dev, "^fd/[0-9]+$")
  end
  return re.match(path, "^/proc/(kcore|[^/]+/mem|[^/]+/task/[^/]+/mem)$")
end

-- device_path says whether a path may name a device: spelt otherwise
-- (//dev/sda, /./dev/sda, /usr/../dev/sda, ~/../../dev/sda), with a glob
-- in its first segment (/d*/sda, /[d]ev/sda), or relative and climbing to
-- a dev or proc folder (../../dev/sda).
local function device_path(p)
  p = string.gsub(p, "^~[^/]*", "/h/u")
  local segs, up, rel = {}, 0, string.sub(p, 1, 1) ~= "/"
  for seg in string.gmatch(p, "[^/]+") do
    if seg == ".." then
      if #segs > 0 then
        segs[#segs] = nil
      else
        up = up + 1
      end
    elseif seg ~= "." then
      segs[#segs + 1] = seg
    end
  end
  if rel then
    return up > 0 and (segs[1] == "dev" or segs[1] == "proc")
  end
  if segs[1] ~= nil and #segs > 1 and string.find(segs[1], "[%*%?%[]") then
    return true
  end
  return named_device("/" .. table.concat(segs, "/"))
end

-- device says whether a word names a device (see device_path), also as
-- the value of an option (--file=/dev/sda, -f/dev/sda).
local function device(x)
  if device_path(x) then
    return true
  end
  local v = string.match(x, "^%-%-?[^=]+=(.+)$") or string.match(x, "^%-%a(.+)$")
  return v ~= nil and device_path(v)
end

local OK_REDIRECT = { ["/dev/null"] = true, ["&1"] = true, ["&2"] = true, ["1"] = true, ["2"] = true }

local function line_readonly(line)
  local cmds, err = commands(line)
  if err or #cmds == 0 then
    -- a line the shell module cannot parse is never approved
    return false
  end
  local budget = { calls = 0 }
  for _, c in ipairs(cmds) do
    if type(c.assigns) == "table" and next(c.assigns) ~= nil then
      return false
    end
    local words = c.words or {}
    if #words == 0 then
      return false
    end
    for _, x in ipairs(words) do
      if re.match(x, "^[A-Za-z_][A-Za-z0-9_]*=") then
        return false
      end
    end
    local first = program(words[1])
    if first == "sudo" or first == "doas" or first == "su" or first == "env" or first == "eval" or first == "exec" or first == "source" or first == "." or first == "nsenter" or first == "unshare" then
      return false
    end
    for _, x in ipairs(words) do
      if not arithmetic_known(x) or device(x) then
        return false
      end
    end
    local w = strip_wrappers(words)
    if w == nil or #w == 0 or not readonly(w) then
      return false
    end
    local name = program(w[1])
    if not arguments_known(name, w, line, budget) then
      return false
    end
    if name == "xargs" then
      local inner = xargs_command(w)
      if #inner > 0 and not arguments_known(inner[1], inner, line, budget) then
        return false
      end
    end
    if type(c.redirects) == "table" then
      for _, r in ipairs(c.redirects) do
        local op = r.op or ""
        if not arithmetic_known(r.target or "") or not arithmetic_known(r.body or "") then
          return false
        end
        -- bash opens a connection for /dev/tcp/HOST/PORT and /dev/udp/...,
        -- also to read (the host name can carry what is read); other
        -- devices read a disk or memory
        if op ~= "<<" and op ~= "<<-" and op ~= "<<<" and device(r.target or "") then
          return false
        end
        if string.find(op, ">", 1, true) and not OK_REDIRECT[r.target or ""] and not string.find(op, "&", 1, true) then
          return false
        end
        if op == ">&" or op == "&>" or op == "&>>" then
          if not OK_REDIRECT[r.target or ""] then
            return false
          end
        end
      end
    end
  end
  return true
end

-- PowerShell (and cmd.exe: dir, type) lines: monad.pwsh reads them, and
-- only a strict list of cmdlets that read is approved.
local PW = require("monad.pwsh")
local PATHS = require("monad.paths")

-- READ_CMDLETS read (or only format what they are given); "block" marks
-- those that run a script block given to them, whose commands must be on
-- the list too (they are listed with the line's) and which take nothing
-- else that could run (ForEach-Object -MemberName Delete calls a method).
local READ_CMDLETS = {}
for n in string.gmatch("Get-ChildItem Get-Content Select-String Get-Location Test-Path Get-Item Measure-Object "
  .. "Get-Command Get-Help Get-Date Get-Process Get-Service Get-FileHash Resolve-Path Split-Path Join-Path "
  .. "Convert-Path Format-Table Format-List Format-Wide Select-Object Sort-Object Group-Object Get-Unique "
  .. "Compare-Object Out-String Write-Output Write-Host ConvertTo-Json ConvertFrom-Json Get-Member Get-Alias "
  .. "Get-Host Get-PSDrive Get-Volume Get-Disk Get-Partition Get-Module Get-Uptime Get-ComputerInfo "
  .. "Get-TimeZone Get-Culture Get-Verb Format-Hex Out-Null Get-Acl Import-Csv", "%S+") do
  READ_CMDLETS[n] = true
end
READ_CMDLETS["Where-Object"] = "block"
READ_CMDLETS["ForEach-Object"] = "block"

-- PS_PROVIDERS are the drives of providers that are not files (the
-- environment's secrets, certificates, variables, the registry).
local PS_PROVIDERS = [[(?i)^(env|cert|variable|function|alias|hklm|hkcu|wsman|registry)::?]]

-- expr_readonly says whether an expression statement (inside a
-- Where-Object or ForEach-Object block) only compares and reads values:
-- no call, type, assignment, block or invocation.
local function expr_readonly(c)
  for _, x in ipairs(c.words) do
    if re.find(x, [=[[(\[{@&=]|::|^\.]=]) then
      return false
    end
  end
  return c.depth > 0 and c.via == "{"
end

-- pwsh_readonly says whether every command of a PowerShell or cmd.exe
-- line only reads: a cmdlet of READ_CMDLETS or a program the POSIX list
-- approves with the same words, with no -Command or -EncodedCommand, no
-- call operator or dot-sourcing, no redirection but to $null or a stream
-- merge (2>&1), no secret file, provider drive, variable or splatting
-- among its arguments, no expression but comparisons inside a block.
local function pwsh_readonly(line, dialect)
  local ok, cmds, err = pcall(PW.commands, line, dialect)
  if not ok or err or #cmds == 0 then
    return false
  end
  for _, c in ipairs(cmds) do
    local w = c.words
    if c.malformed or c.invoke ~= "" or #w == 0 then
      return false
    end
    for _, r in ipairs(c.redirects) do
      if not (r.op == ">&" or (r.op == ">" or r.op == ">>") and string.lower(r.target) == "$null") then
        return false
      end
    end
    if c.expr then
      if not expr_readonly(c) then
        return false
      end
    elseif c.cmdlet then
      local kind = READ_CMDLETS[w[1]]
      -- -Online and -ShowWindow (Get-Help) open a browser or a window
      if not kind or PW.param(c, "command", 3) or PW.param(c, "encodedcommand", 2) or PW.param(c, "online", 2) or PW.param(c, "showwindow", 2) then
        return false
      end
      for k = 2, #w do
        local x = w[k]
        if kind == "block" and string.sub(x, 1, 1) ~= "{" and string.sub(x, 1, 1) ~= "-" then
          if w[1] == "ForEach-Object" then
            return false -- % Delete: a method of each item
          end
        end
        if re.find(x, PS_PROVIDERS) or PATHS.secret_kind(PW.winpath(x)) then
          return false
        end
        -- a variable or a splatted table could name anything (a secret
        -- file, -Command); a bare wildcard of Get-Content reads .env too
        if string.sub(x, 1, 1) == "@" or (string.find(x, "$", 1, true) and string.sub(x, 1, 1) ~= "{" and not re.match(x, [[(?i)^-?[a-z]*:?\$(true|false|null)$]]))
          or (w[1] == "Get-Content" and re.match(x, [[^[.*]*\*[.*]*$]])) then
          return false
        end
      end
    else
      -- a program: the POSIX rules, on words a POSIX shell reads the same;
      -- not a Windows program of the same name (sort.exe /o writes, find.exe
      -- is not find), which takes /X switches or is written with .exe
      if string.find(string.lower(c.written), ".exe", 1, true) then
        return false
      end
      for k = 1, #w do
        if re.find(w[k], [=[['"$`\{}()@]]=]) or k > 1 and re.match(w[k], [=[^/[A-Za-z?]]=]) then
          return false
        end
      end
      if not line_readonly(table.concat(w, " ")) then
        return false
      end
    end
  end
  return true
end

-- POSIX_DIVERGES: text a POSIX shell and PowerShell read differently
-- (backtick, backslash before a quote, $'...'): a line sent with no
-- dialect is approved as PowerShell only without them.
local POSIX_DIVERGES = [=[`|\["']|\$']=]

hook{
  event = "ApprovalRequest",
  handler = function(input)
    local name = input.toolName or ""
    local kind = input.tool and input.tool.kind
    if TOOLS[name] or kind == "read" then
      -- not a device: the paths of the engine's view (with the targets of
      -- links), or the strings of an input the tool table does not know
      local paths = input.tool and C.view_part(input.tool, "paths") or {}
      if input.tool == nil and type(input.toolInput) == "table" then
        for _, v in pairs(input.toolInput) do
          if type(v) == "string" then
            paths[#paths + 1] = v
          end
        end
      end
      for _, path in ipairs(paths) do
        if device(path) then
          return nil
        end
      end
      return { decision = "allow", reason = PACK .. ": " .. name .. " only reads" }
    end
    local lines
    if kind == "shell" then
      lines = C.view_part(input.tool, "command")
    elseif kind == nil and P.matcher ~= "" and re.find(name, P.matcher) then
      lines = command_texts(input.toolInput, P.commandFields)
    else
      return nil
    end
    if #lines == 0 then
      return nil
    end
    for _, line in ipairs(lines) do
      local dialect = input.tool and input.tool.shell
      if dialect then
        if not pwsh_readonly(line, dialect) then
          return nil
        end
      elseif not line_readonly(line) and not (PW.dialect(nil, line) and not re.find(line, POSIX_DIVERGES) and pwsh_readonly(line, "powershell")) then
        return nil
      end
    end
    return { decision = "allow", reason = PACK .. ": every command only reads" }
  end,
}
