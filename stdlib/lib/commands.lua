--- monad.commands: what the stdlib packs that read tool calls share: the
--- registration of hooks on the tools of a kind (the engine's tool table
--- says which tools run shell commands, read, write or fetch, whatever the
--- host calls them), the command strings of a tool input, and the words of
--- a simple command seen through wrappers and flags.
---
---     local C = require("monad.commands")
---     C.on_kind({ event = "BeforeTool", kind = "shell", matcher = P.matcher,
---                 texts = function(input) return C.command_texts(input.toolInput, P.commandFields) end },
---       function(lines, input)
---         for _, line in ipairs(lines) do
---           for _, c in ipairs(C.commands(line)) do
---             local w = C.unwrap(c.words)
---             ...

local re = require("re")

-- The host shell module (Go) parses command lines: commands(line) returns
-- the simple commands ({words, op, redirects, assigns}, op being the
-- operator after the command) and, when the line does not parse fully, an
-- error as a second value; split(s) returns the words of a string.
local shell = require("shell")
local commands, split = shell.commands, shell.split

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

-- DEFAULT_PART is the part of the engine's view (input.tool) that a hook
-- of a kind reads: the command line of a shell tool, the texts of a patch,
-- the URLs of a fetch tool, the statements of a query tool, else the paths.
local DEFAULT_PART = { shell = "command", patch = "contents", fetch = "urls", query = "contents" }

-- view_part returns one part of the engine's view as a list of strings.
local function view_part(tool, part)
  local v = tool[part]
  if type(v) == "string" then
    if v == "" then
      return {}
    end
    return { v }
  end
  local out = {}
  for _, s in ipairs(v or {}) do
    out[#out + 1] = s
  end
  return out
end

-- on_kind registers check(texts, input) at cfg.event for the tools of
-- cfg.kind (a kind or a list of kinds) in the engine's tool table, the
-- texts being a part of the engine's view of the call (cfg.part, or the
-- kind's DEFAULT_PART). When cfg.matcher is not empty (a pack's deprecated
-- tool-name matcher), it also registers check for the tools the matcher
-- names that the table does not know, with texts from cfg.texts(input).
-- check is called only when there are texts; what it returns is the
-- hook's output. Both hooks fail closed. cfg.prefilter (a scan.any test,
-- for kind "shell" only) goes to the kind hook's hook{ prefilter }: check
-- must return nil for a command line in which it finds nothing, and the
-- hook then runs only for the other lines (a Go search without a VM,
-- BenchmarkDefaultSetBeforeTool).
local function on_kind(cfg, check)
  local first = cfg.kind
  if type(first) == "table" then
    first = first[1]
  end
  local part = cfg.part or DEFAULT_PART[first] or "paths"
  hook{ event = cfg.event, kind = cfg.kind, prefilter = cfg.prefilter, onError = "deny", handler = function(input)
    if input.tool == nil then
      return nil
    end
    local texts = view_part(input.tool, part)
    if #texts == 0 then
      return nil
    end
    return check(texts, input)
  end }
  if cfg.matcher ~= nil and cfg.matcher ~= "" then
    hook{ event = cfg.event, matcher = cfg.matcher, onError = "deny", handler = function(input)
      if input.tool ~= nil then
        return nil -- a tool the table knows: the kind hook checks it
      end
      local texts = cfg.texts(input)
      if #texts == 0 then
        return nil
      end
      return check(texts, input)
    end }
  end
end

-- basename returns the last path segment of a command word, lowercased.
local function basename(w)
  if w == nil then
    return ""
  end
  return string.lower(string.match(w, "[^/]*$"))
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
  nsenter = { o = "tSGw" }, unshare = {},
  -- GNU parallel CMD ::: ARGS runs CMD with each of ARGS (the ::: stays an
  -- operand: what matters is that the arguments follow the command)
  parallel = { o = "jSNnsLaEdIC" },
}

-- unwrap strips wrapper commands (and leading VAR=value words) from a word
-- list and returns the effective command words. It runs after
-- shell.unwrap, as a backstop for wrappers that one does not know. Every
-- round strips at least one word, so any number of wrappers is stripped.
local function unwrap(words)
  local w = shell.unwrap(words)
  local i, n = 1, #w
  while i <= n do
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
-- whose value is the next word (or the rest of the cluster); longtakes, when
-- given, the long options whose value may be the next word. Every value of
-- an option given more than once is kept in order in all[letter] and
-- all[name] (vals and l keep the last).
local function parse_flags(w, first, takes, longtakes)
  local f = { s = {}, l = {}, args = {}, vals = {}, all = {} }
  local function keep(name, v)
    local list = f.all[name] or {}
    list[#list + 1] = v
    f.all[name] = list
  end
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
        keep(string.sub(a, 3, eq - 1), string.sub(a, eq + 1))
      elseif longtakes and longtakes[string.sub(a, 3)] and w[i + 1] then
        f.l[string.sub(a, 3)] = w[i + 1]
        keep(string.sub(a, 3), w[i + 1])
        i = i + 1
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
          keep(c, v)
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

-- matches_any says whether s matches one of the RE2 expressions of list
-- (a pack's exempt or extra patterns).
local function matches_any(s, list)
  for i = 1, #list do
    if re.find(s, list[i]) then
      return true
    end
  end
  return false
end

-- env_cut reads the wrappers before a command's program that change the
-- environment it gets: env -i (-, --ignore-environment) and sudo or doas
-- without -E (--preserve-env) start it from an empty one, env -u NAME
-- (--unset=NAME) removes NAME. It returns whether the environment was
-- cleared, the index of the first word after the last wrapper that
-- cleared it (what is set before does not reach the program: RAILS_ENV=test
-- sudo rails ...), and the set of names removed (nil when none).
local function env_cut(words)
  local lead = #words - #unwrap(words)
  local cleared, at, removed = false, 0, nil
  local k = 1
  while k <= lead do
    local b = basename(words[k])
    if b == "env" or b == "sudo" or b == "doas" then
      local clears, j = b ~= "env", k + 1
      while j <= lead and string.sub(words[j], 1, 1) == "-" do
        local a = words[j]
        if b == "env" and (a == "-i" or a == "-" or a == "--ignore-environment") then
          clears = true
        elseif b == "env" and (a == "-u" or a == "--unset") and words[j + 1] then
          removed = removed or {}
          removed[words[j + 1]] = true
          j = j + 1
        elseif b == "env" and string.sub(a, 1, 8) == "--unset=" then
          removed = removed or {}
          removed[string.sub(a, 9)] = true
        elseif b ~= "env" and (a == "-E" or string.sub(a, 1, 14) == "--preserve-env") then
          clears = false
        end
        j = j + 1
      end
      if clears then
        cleared, at = true, j
      end
      k = j
    else
      k = k + 1
    end
  end
  return cleared, at, removed
end

-- ENV_SET: the ways a command sets or marks variables (export, declare
-- -x, ...); the value says which words follow: names with values.
local ENV_DECL = { export = true, declare = true, typeset = true, ["local"] = true, readonly = true }

-- MAX_ENV bounds the variable changes an environment tracker follows on
-- one line; past it the tracker stops and exports nothing (no command is
-- then seen as run in a test environment).
local MAX_ENV = 64

-- UNKNOWN is the value of a variable set where its value cannot be known
-- to reach the commands after (a subshell, a pipeline, a function body).
local UNKNOWN = false

-- NO_WORDS is an empty list (a command without words or assignments).
local NO_WORDS = {}

-- env_tracker follows the variables a command line exports to the
-- programs it runs, command by command (the commands of shell.commands,
-- in order): export NAME=v, declare/typeset -x, set -a (set -o
-- allexport) with the assignments after it, export NAME of a variable set
-- before, and unset NAME, export -n NAME, declare +x NAME. A variable set
-- in a subshell (( ... ), $(...), a command string), in a pipeline or
-- in the background, or in a function body (which may run any time) does
-- not carry out: it becomes unknown for the commands after it (neither a
-- test nor a production value), while unset in those still removes it (a
-- removal never makes a command look safer). t:step(c, words) reads one
-- command (words: its words as the caller sees them, expanded or not;
-- c.words by default); t:list(own, inherited) returns the "NAME=value"
-- words of the known exported variables after the last step, but those
-- own (a map) sets itself, and those of inherited (the environment the
-- line was given, NAME=value words) that the line did not change. Bounded
-- by MAX_ENV changes.
local TRACKER = {}
TRACKER.__index = TRACKER

-- set records the variable n (rec nil: unset) so that the frame it was
-- made in can restore the value before when it is a subshell.
local function env_set(t, n, rec)
  local vars = t.vars
  local f = t.frames and t.frames[#t.frames] or t.top
  if f.saved[n] == nil then
    f.saved[n] = { rec = vars[n] }
  end
  vars[n] = rec
  t.touched[n] = true
  t.n = t.n + 1
end

-- env_put sets n to v, exported when exported says so, when it was or
-- under set -a; to an unknown value when lost.
local function env_put(t, n, v, exported, lost)
  if lost then
    v = UNKNOWN
  end
  local old = t.vars[n]
  env_set(t, n, { v = v, x = exported or (old ~= nil and old.x) or (t.vars["-a"] ~= nil) })
end

function TRACKER:step(c, words)
  if self.n > MAX_ENV then
    return
  end
  local d = c.depth or 0
  local frames = self.frames
  if frames == nil and d > 0 then
    frames = { self.top }
    self.frames = frames
  end
  local pending = self.pending
  self.pending = nil
  if frames then
    local vars = self.vars
    -- leave the groups that ended: a subshell restores what it changed, a
    -- { } group hands it to the group around it
    while #frames > 1 and frames[#frames].d > d do
      local f = table.remove(frames)
      local up = frames[#frames]
      for n, old in pairs(f.saved) do
        if f.sub then
          vars[n] = old.rec
        elseif up.saved[n] == nil then
          up.saved[n] = old
        end
      end
    end
    while frames[#frames].d < d do
      local top = frames[#frames]
      local level = top.d + 1
      local scoped = not (level == d and c.via == "{")
      frames[#frames + 1] = { d = level, saved = {}, sub = top.sub or scoped }
      -- the commands of a command's own command string (RAILS_ENV=test
      -- bash -c '...') run with its assignments
      if pending and pending.d == top.d then
        for n, v in pairs(pending.assigns) do
          env_set(self, n, { v = v, x = true })
        end
      end
    end
  end
  local f = frames and frames[#frames] or self.top
  words = words or c.words or NO_WORDS
  local op, prev = c.op, self.prev
  self.prev = c
  -- where a set value does not reach the commands after
  local lost = f.sub or (c.func ~= nil and c.func ~= "") or op == "|" or op == "|&" or op == "&"
    or (prev ~= nil and (prev.depth or 0) == d and (prev.op == "|" or prev.op == "|&"))
  local assigns = type(c.assigns) == "table" and c.assigns or nil
  if #words > 0 and assigns and next(assigns) and not lost then
    self.pending = { d = d, assigns = assigns }
  end
  if #words == 0 then
    for n, v in pairs(assigns or NO_WORDS) do
      if type(v) == "string" then
        env_put(self, n, v, false, lost)
      end
    end
    return
  end
  local name = words[1]
  if name == "unset" then
    for k = 2, #words do
      if string.match(words[k], "^[%a_][%w_]*$") then
        env_set(self, words[k], nil)
      end
    end
  elseif name == "set" then
    for k = 2, #words do
      local w, nx = words[k], words[k + 1]
      if w == "-a" or (w == "-o" and nx == "allexport") then
        env_set(self, "-a", { v = "" })
      elseif w == "+a" or (w == "+o" and nx == "allexport") then
        env_set(self, "-a", nil)
      elseif re.match(w, "^-[A-Za-z]*a[A-Za-z]*$") then
        env_set(self, "-a", { v = "" })
      end
    end
  elseif ENV_DECL[name] then
    local vars = self.vars
    local x, unx = name == "export", false
    for k = 2, #words do
      local w = words[k]
      if string.sub(w, 1, 1) == "-" and not string.find(w, "=", 1, true) then
        x = x or (name ~= "export" and string.find(w, "x", 2, true) ~= nil)
        unx = unx or (name == "export" and string.find(w, "n", 2, true) ~= nil)
      elseif string.sub(w, 1, 1) == "+" and string.find(w, "x", 2, true) then
        unx = true
      end
    end
    for k = 2, #words do
      local n, eq, v = string.match(words[k], "^([%a_][%w_]*)(=?)(.*)$")
      if n and eq == "=" then
        if unx then
          env_put(self, n, v, false, lost)
          vars[n].x = false
        else
          env_put(self, n, v, x, lost)
        end
      elseif n and n == words[k] then
        local old = vars[n]
        if unx then
          if old then
            env_set(self, n, { v = old.v, x = false })
          end
        elseif x then
          -- export NAME: the value set before (or the one inherited, unknown)
          env_set(self, n, { v = (old and not lost) and old.v or UNKNOWN, x = true })
        end
      end
    end
  end
end

function TRACKER:list(own, inherited)
  local out = {}
  if self.n > MAX_ENV then
    return out
  end
  for n, rec in pairs(self.vars) do
    if rec.x and rec.v ~= UNKNOWN and n ~= "-a" and (own == nil or own[n] == nil) then
      out[#out + 1] = n .. "=" .. rec.v
    end
  end
  for k = 1, inherited and #inherited or 0 do
    local n = string.match(inherited[k], "^([^=]*)=")
    if n and self.touched[n] == nil and (own == nil or own[n] == nil) then
      out[#out + 1] = inherited[k]
    end
  end
  return out
end

-- (the frames below the top level are made when a command is first
-- deeper than it)
local function env_tracker()
  return setmetatable({ vars = {}, touched = {}, top = { d = 0, saved = {} }, n = 0 }, TRACKER)
end

-- env_step is t:step(cmds[i]) for a tracker made only when a command
-- first exports, declares, unsets or sets (set -a) variables, or gives
-- its own to the command it runs (RAILS_ENV=test bash -c '...'): most
-- lines do not (nil until then); made, it reads the commands before
-- first (a NAME=value that export NAME exports after). It returns the
-- tracker (or nil).
local function env_step(t, cmds, i)
  local c = cmds[i]
  if t == nil then
    local w1 = (c.words or NO_WORDS)[1]
    if not ((w1 and (ENV_DECL[w1] or w1 == "set" or w1 == "unset")) or (w1 and type(c.assigns) == "table" and next(c.assigns))) then
      return nil
    end
    t = env_tracker()
    for k = 1, i - 1 do
      t:step(cmds[k])
    end
  end
  t:step(c)
  return t
end

-- env_list is t:list(own, inherited), also for no tracker (nil): the
-- inherited words that own does not set.
local function env_list(t, own, inherited)
  if t then
    return t:list(own, inherited)
  end
  local out = {}
  for k = 1, inherited and #inherited or 0 do
    local n = string.match(inherited[k], "^([^=]*)=")
    if n and (own == nil or own[n] == nil) then
      out[#out + 1] = inherited[k]
    end
  end
  return out
end

return {
  ---shell.commands: the simple commands of a command line.
  commands = commands,
  ---shell.split: the words of a string.
  split = split,
  ---@type fun(tool_input: any, fields: string[]): string[]
  command_texts = command_texts,
  ---Registers check(texts, input) for the tools of a kind (and, with a
  ---pack's deprecated matcher, for unknown tools it names).
  ---@type fun(cfg: {event: string, kind: string|string[], part: string?, matcher: string?, texts: fun(input: table): string[]}, check: fun(texts: string[], input: table): table?)
  on_kind = on_kind,
  ---@type fun(tool: table, part: string): string[]
  view_part = view_part,
  ---@type fun(w: string?): string
  basename = basename,
  ---@type fun(words: string[]): string[]
  unwrap = unwrap,
  ---@type fun(w: string[], first: integer?, takes: string?, longtakes: table<string, boolean>?): {s: table<string, boolean>, l: table<string, string|boolean>, args: string[], vals: table<string, string>, all: table<string, string[]>}
  parse_flags = parse_flags,
  ---@type fun(s: string, list: string[]): boolean
  matches_any = matches_any,
  ---What the wrappers of a command's words do to its environment: cleared,
  ---the index after the last clearing wrapper, the names removed.
  ---@type fun(words: string[]): boolean, integer, table<string, boolean>?
  env_cut = env_cut,
  ---Follows the variables a line exports to the programs it runs:
  ---t:step(c, words) per command in order, t:list(own, inherited) the
  ---NAME=value words of the known exported ones.
  ---@type fun(): {step: fun(self: table, c: table, words: string[]?), list: fun(self: table, own: table?, inherited: string[]?): string[]}
  env_tracker = env_tracker,
  ---t:step(cmds[i]) for a tracker made when first needed (t nil before).
  ---@type fun(t: table?, cmds: table[], i: integer): table?
  env_step = env_step,
  ---t:list(own, inherited), also without a tracker.
  ---@type fun(t: table?, own: table?, inherited: string[]?): string[]
  env_list = env_list,
}
