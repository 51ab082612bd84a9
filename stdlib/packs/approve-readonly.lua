--- pack: approve-readonly
--- summary: Auto-approve read-only tools and shell commands at the approval gate; defer everything else.
--- events: ApprovalRequest
---
--- At the approval gate (`ApprovalRequest`) it answers `allow` for:
---
--- - tools listed in `tools` (`read_file`, `list_dir`, `grep`, `glob`, ...);
--- - shell commands (the `matcher` tools) whose every simple command is
---   read-only: `ls`, `cat`, `head`, `tail`, `wc`, `pwd`, `echo`,
---   `printf`, `grep`/`rg`/`ag` (without `--pre`), `find` (without
---   `-delete`, `-exec`, `-execdir`, `-ok`, `-fprint*`, `-fls`), `file`,
---   `stat`, `du`, `df`, `tree`, `which`, `uname`, `whoami`, `id`, `date`,
---   `sort`/`uniq` (without an output file), `cut`, `tr`, `diff`, `cmp`,
---   `jq`, `basename`, `dirname`, `realpath`, `md5sum`/`sha*sum`, `xxd`
---   (without `-r`), `xargs` running one of these, and read-only `git`
---   (`status`, `diff`, `log`, `show`, `blame`, `ls-files`, `rev-parse`,
---   `describe`, `shortlog`, `grep`, `branch` and `tag` that only list,
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
  -- RE2 matched against the tool name: the tools whose input is a shell command.
  matcher = { "regex", "^(shell_exec|bash|shell|run_shell_command|exec_command|terminal)$" },
  -- Fields of toolInput that hold the command.
  commandFields = { "[]string", { "command", "cmd", "commands", "script" } },
  -- Extra command names that count as read-only.
  commands = { "[]string", {} },
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

-- common:shell begin (identical in every pack that reads shell commands)
-- The host shell module (Go) parses command lines: commands(line) returns
-- the simple commands ({words, op, redirects, assigns}, op being the
-- operator after the command) and, when the line does not parse fully, an
-- error as a second value; split(s) returns the words of a string.
local shell = require("shell")
local commands, split = shell.commands, shell.split
-- common:shell end

-- common:commands begin (identical in every pack that reads shell commands)
-- command_texts returns the command strings of a tool input: the input itself
-- when it is a string, else every string (or string in a list) held by one of
-- the fields.
local function command_texts(tool_input, fields)
  local out = {}
  if type(tool_input) == "string" then
    out[1] = tool_input
    return out
  end
  if type(tool_input) ~= "table" then
    return out
  end
  for _, f in ipairs(fields) do
    local v = tool_input[f]
    if type(v) == "string" and v ~= "" then
      out[#out + 1] = v
    elseif type(v) == "table" then
      for _, e in ipairs(v) do
        if type(e) == "string" and e ~= "" then
          out[#out + 1] = e
        end
      end
    end
  end
  return out
end

-- basename returns the last path segment of a command word, lowercased.
local function basename(w)
  if w == nil then
    return ""
  end
  local s = re.gsub(w, "^.*/", "")
  return string.lower(s)
end

-- WRAPPERS take a command to run as their arguments. The value lists the
-- options that consume the next word; "*" means the first operand is
-- consumed too (timeout DURATION, chroot DIR, flock FILE, taskset MASK).
local WRAPPERS = {
  sudo = { o = "uUgChpDrtTR" }, doas = { o = "uC" }, run0 = { o = "uUgD" },
  env = { o = "uCS" }, nohup = {}, time = { o = "fo" }, nice = { o = "n" },
  ionice = { o = "cnp" }, timeout = { o = "sk", operand = true },
  stdbuf = { o = "ioe" }, setsid = {}, xargs = { o = "IiLlnPdEsa" },
  exec = { o = "a" }, command = {}, builtin = {}, busybox = {}, unbuffer = {},
  caffeinate = { o = "tw" }, taskset = { o = "", operand = true }, chrt = { operand = true },
  chroot = { operand = true }, flock = { o = "wE", operand = true }, firejail = {},
  strace = { o = "eopsSuI" }, ltrace = { o = "eopsSuI" }, ["then"] = {}, ["do"] = {},
  ["else"] = {}, ["!"] = {}, noglob = {}, nocorrect = {}, catchsegv = {}, torsocks = {},
  proxychains = { o = "f" }, proxychains4 = { o = "f" }, sg = { operand = true },
  npx = { o = "pc" }, bunx = {}, pnpx = {}, uvx = {}, sshpass = { o = "pfdP" },
}

-- unwrap strips wrapper commands (and leading VAR=value words) from a word
-- list and returns the effective command words. It runs after
-- shell.unwrap, as a backstop for wrappers that one does not know.
local function unwrap(words)
  local w = shell.unwrap(words)
  local i, n = 1, #w
  for _ = 1, 16 do
    while i <= n and re.match(w[i], "^[A-Za-z_][A-Za-z0-9_]*=") do
      i = i + 1
    end
    local name = basename(w[i])
    local spec = WRAPPERS[name]
    if spec == nil then
      break
    end
    i = i + 1
    local takes = spec.o or ""
    while i <= n and string.sub(w[i], 1, 1) == "-" and w[i] ~= "-" do
      local a = w[i]
      i = i + 1
      if a == "--" then
        break
      end
      if string.sub(a, 1, 2) ~= "--" and string.len(a) == 2 and string.find(takes, string.sub(a, 2, 2), 1, true) then
        i = i + 1
      elseif name == "nice" and re.match(a, "^-[0-9]+$") then
        -- nice -10
      elseif name == "sudo" and (a == "-s" or a == "-i") then
        -- sudo -s CMD: the rest is the command
      end
    end
    if name == "env" then
      while i <= n and re.match(w[i], "^[A-Za-z_][A-Za-z0-9_]*=") do
        i = i + 1
      end
    end
    if spec.operand then
      i = i + 1
    end
  end
  local out = {}
  for k = i, n do
    out[#out + 1] = w[k]
  end
  return out
end

-- parse_flags splits the words after the command name into short flags,
-- long flags (with their =values) and operands. takes lists the short options
-- whose value is the next word (or the rest of the cluster).
local function parse_flags(w, first, takes)
  local f = { s = {}, l = {}, args = {}, vals = {} }
  takes = takes or ""
  local i = first or 2
  local ended = false
  while i <= #w do
    local a = w[i]
    if ended or a == "-" or string.sub(a, 1, 1) ~= "-" then
      f.args[#f.args + 1] = a
    elseif a == "--" then
      ended = true
    elseif string.sub(a, 1, 2) == "--" then
      local eq = string.find(a, "=", 1, true)
      if eq then
        f.l[string.sub(a, 3, eq - 1)] = string.sub(a, eq + 1)
      else
        f.l[string.sub(a, 3)] = true
      end
    else
      local j = 2
      while j <= string.len(a) do
        local c = string.sub(a, j, j)
        if string.find(takes, c, 1, true) then
          local v = string.sub(a, j + 1)
          if v == "" then
            i = i + 1
            v = w[i] or ""
          end
          f.s[c] = true
          f.vals[c] = v
          break
        end
        f.s[c] = true
        j = j + 1
      end
    end
    i = i + 1
  end
  return f
end
-- common:commands end
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

-- readonly says whether one simple command (its words, unwrapped) only reads.
local function readonly(w)
  local name = basename(w[1])
  if not SIMPLE[name] then
    return false
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
  elseif name == "rg" or name == "grep" or name == "ag" then
    for k = 2, #w do
      if re.match(w[k], "^--pre(=|$)") then
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
      if re.match(w[k], "^--(output|ext-diff|textconv|exec|upload-pack)(=|$)") then
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
    if first == "sudo" or first == "doas" or first == "su" or first == "env" or first == "eval" or first == "exec" or first == "source" or first == "." then
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
    if TOOLS[name] then
      return { decision = "allow", reason = PACK .. ": " .. name .. " only reads" }
    end
    if not re.find(name, P.matcher) then
      return nil
    end
    local lines = command_texts(input.toolInput, P.commandFields)
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
