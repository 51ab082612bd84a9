--- pack: approve-readonly
--- summary: Auto-approve read-only tools and shell commands at the approval gate; defer everything else.
--- events: ApprovalRequest
--- kinds: read, shell
---
--- At the approval gate (`ApprovalRequest`) it answers `allow` for:
---
--- - tools of kind `read` in the engine's tool table (`Read`, `Glob`,
---   `Grep`, `LS`, `read_file`, `list_directory`, `view`, `ls`, ...) and
---   tools listed in `tools`;
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
--- It never approves a command line that contains anything else: a
--- command not on the list, an output redirection (`>`, `>>`; `2>&1` and
--- `> /dev/null` are fine), a variable assignment (which could change
--- what a program runs, e.g. `GIT_EXTERNAL_DIFF=`), `sudo`, `git -c`,
--- `git ... --output`, `sed`/`awk` (which can write and run programs), or
--- a line the shell module cannot parse. For everything it does not
--- approve it returns nothing, so the human gate (or another hook)
--- decides; it never denies.

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
local command_texts, basename, unwrap, parse_flags = C.command_texts, C.basename, C.unwrap, C.parse_flags

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
  ack = { long = { pager = true } },
  bat = { long = { pager = true } },
  sort = { long = { output = true, ["compress-program"] = true }, short = "o" },
  tree = { short = "oR" },
  date = { long = { set = true }, short = "s", operands = "^[^+]", values = "dfr" },
  file = { long = { compile = true }, short = "C" },
  hostname = { long = { file = true, boot = true }, short = "Fb", operands = true },
}

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
      if a.long and a.long[long] then
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

-- readonly says whether one simple command (its words, unwrapped) only reads.
local function readonly(w)
  local name = basename(w[1])
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
    for k = 2, #w do
      if re.match(w[k], "^(-x|--exec|-X|--exec-batch)") then
        return false
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
    local inner = unwrap(w)
    if #inner == 0 or basename(inner[1]) == "xargs" then
      return true -- xargs alone runs echo
    end
    return readonly(inner)
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
      if re.match(w[k], "^--(output|ext-diff|textconv|exec|upload-pack|open-files-in-pager)(=|$)") then
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
      for _, a in ipairs(rest) do
        if a == "--get" or a == "--list" or a == "-l" or a == "--get-all" or a == "--get-regexp" then
          return true
        end
      end
      return false
    end
    if sub == "stash" then
      return rest[1] == "list" or rest[1] == "show"
    end
    return false
  end
  return true
end

local OK_REDIRECT = { ["/dev/null"] = true, ["&1"] = true, ["&2"] = true, ["1"] = true, ["2"] = true }

local function line_readonly(line)
  local cmds, err = commands(line)
  if err or #cmds == 0 then
    -- a line the shell module cannot parse is never approved
    return false
  end
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
    local first = basename(words[1])
    if first == "sudo" or first == "doas" or first == "su" or first == "env" or first == "eval" or first == "exec" or first == "source" or first == "." or first == "nsenter" or first == "unshare" then
      return false
    end
    local w = unwrap(words)
    if #w == 0 or not readonly(w) then
      return false
    end
    if type(c.redirects) == "table" then
      for _, r in ipairs(c.redirects) do
        local op = r.op or ""
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

hook{
  event = "ApprovalRequest",
  handler = function(input)
    local name = input.toolName or ""
    local kind = input.tool and input.tool.kind
    if TOOLS[name] or kind == "read" then
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
      if not line_readonly(line) then
        return nil
      end
    end
    return { decision = "allow", reason = PACK .. ": every command only reads" }
  end,
}
