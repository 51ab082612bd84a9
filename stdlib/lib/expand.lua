--- monad.expand: the values of shell variables as the shell puts them
--- in, for the packs that follow a command line's variables
--- (deny-destructive, protect-paths): a value is expanded when it is
--- assigned (D=/; cmd="rm -rf $D"), words get the values, ${NAME},
--- ${NAME:-DEFAULT}, the operators %, %%, #, ##, /, //, :OFF:LEN, ^^ and
--- ,, on a known value, and the output of substitutions that only print
--- ($(echo "$v"), $(printf %s "$v"), $(cat <<<"$v"), realpath, readlink
--- -f, dirname). Everything is bounded: passes, substitutions read and
--- the length of a word (BOUNDS), a caller's limit on a result.
---
---     local E = require("monad.expand")
---     local st = { root = "/work/proj" }
---     local vars = {}
---     E.assign(vars, "D", "~/.ssh", limit, st)
---     E.subst("$D/id_rsa", vars, limit, st)  --> "~/.ssh/id_rsa"

local re = require("re")
local split = require("shell").split

-- BOUNDS bound the resolution of values: the passes that put values in
-- for variables in one word (passes: a value may name another variable,
-- and eval "$c" expands it again), the substitutions that only print
-- (see printed) put in for one word (printed), and the length of a word
-- they are put in for (printed_word: a here-document's body may be long).
local BOUNDS = { passes = 3, printed = 64, printed_word = 16384 }

-- join is words from the index from on, joined by blanks.
local function join(words, from)
  local parts = {}
  for k = from or 1, #words do
    parts[#parts + 1] = words[k]
  end
  return table.concat(parts, " ")
end

-- printf_fill is FMT with its %s and %b filled in by args in turn (the
-- format used again while arguments are left, as printf does).
local function printf_fill(fmt, args)
  local out, n = {}, 0
  repeat
    out[#out + 1] = (string.gsub(fmt, "%%[sb]", function()
      n = n + 1
      return args[n] or ""
    end))
  until n >= #args or not string.find(fmt, "%%[sb]")
  return table.concat(out)
end

local ESCAPES = { n = "\n", t = "\t", r = "\r", ["\\"] = "\\", a = "", b = "", e = "", f = "", v = "" }

-- unescape decodes the backslash escapes printf and echo -e expand (\xHH,
-- \NNN, \0NNN, \n, ...), so that the text they feed a shell is seen.
local function unescape(s)
  if not string.find(s, "\\", 1, true) then
    return s
  end
  local out, i, n = {}, 1, string.len(s)
  while i <= n do
    local c = string.sub(s, i, i)
    local d = string.sub(s, i + 1, i + 1)
    if c ~= "\\" or d == "" then
      out[#out + 1] = c
      i = i + 1
    elseif d == "x" and string.match(s, "^%x", i + 2) then
      local h = string.match(s, "^%x%x?", i + 2)
      out[#out + 1] = string.char(tonumber(h, 16))
      i = i + 2 + string.len(h)
    elseif string.match(d, "[0-7]") then
      local o = string.match(s, "^0?[0-7][0-7]?[0-7]?", i + 1)
      out[#out + 1] = string.char(tonumber(o, 8) % 256)
      i = i + 1 + string.len(o)
    elseif ESCAPES[d] then
      out[#out + 1] = ESCAPES[d]
      i = i + 2
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return table.concat(out)
end

-- param_op returns what ${NAME<op>} gives for the value val: op
-- is %PAT, %%PAT, #PAT, ##PAT (PAT a glob of * and ?), /PAT/REP and
-- //PAT/REP (PAT literal), :OFF and :OFF:LEN, ^^ or ,,; nil for another
-- op, a pattern that holds an expansion, or a value longer than 1 KiB
-- (each trim tries every prefix or suffix).
local function param_op(val, op)
  if string.len(val) > 1024 or string.find(op, "[%$`{]") then
    return nil
  end
  local c = string.sub(op, 1, 1)
  if c == "#" or c == "%" then
    local long = string.sub(op, 2, 2) == c
    local glob = string.sub(op, long and 3 or 2)
    local lp = "^" .. string.gsub(string.gsub(glob, "[%^%$%(%)%%%.%[%]%+%-]", "%%%0"), "[*?]", { ["*"] = ".*", ["?"] = "." }) .. "$"
    local n = string.len(val)
    if c == "#" then
      for i = long and n or 0, long and 0 or n, long and -1 or 1 do
        if string.match(string.sub(val, 1, i), lp) then
          return string.sub(val, i + 1)
        end
      end
    else
      for i = long and 1 or n + 1, long and n + 1 or 1, long and 1 or -1 do
        if string.match(string.sub(val, i), lp) then
          return string.sub(val, 1, i - 1)
        end
      end
    end
    return val
  elseif c == "/" then
    local all = string.sub(op, 2, 2) == "/"
    local pat, rep = string.match(string.sub(op, all and 3 or 2), "^([^/]*)/?(.*)$")
    if not pat or pat == "" or string.find(pat, "[*?%[]") then
      return nil
    end
    local out, from = {}, 1
    while true do
      local a, b = string.find(val, pat, from, true)
      if not a then
        break
      end
      out[#out + 1] = string.sub(val, from, a - 1) .. rep
      from = b + 1
      if not all then
        break
      end
    end
    out[#out + 1] = string.sub(val, from)
    return table.concat(out)
  elseif c == ":" then
    local off, len = string.match(op, "^:(%d+):?(%d*)$")
    if not off then
      return nil
    end
    return string.sub(val, tonumber(off) + 1, len ~= "" and tonumber(off) + tonumber(len) or -1)
  elseif op == "^^" then
    return string.upper(val)
  elseif op == ",," then
    return string.lower(val)
  end
  return nil
end

-- printed returns what the command of a substitution ($(BODY), `BODY`)
-- prints when it only prints text the line gives (echo, printf FMT ARGS
-- with %s and %b, cat <<< WORD, realpath P, readlink -f P, dirname P),
-- its trailing newlines cut and the others
-- read as blanks; nil for any other command or one that still holds an
-- expansion but $HOME.
local function printed(body)
  if string.find(body, "`", 1, true) or (string.find(body, "$", 1, true) and string.find(re.gsub(body, [[\$\{?HOME\}?]], ""), "$", 1, true)) then
    return nil
  end
  local w = split(body)
  if not w or #w < 2 then
    return nil
  end
  -- cat <<< WORD, <<< WORD cat: the here-string
  if #w == 3 and (w[1] == "cat" and w[2] == "<<<" or w[1] == "<<<" and w[3] == "cat") then
    return w[1] == "cat" and w[3] or w[2]
  end
  for k = 2, #w do
    if re.match(w[k], [[^([;&|<>()]+|[0-9]*[<>].*)$]]) then
      return nil
    end
  end
  local out
  if w[1] == "echo" then
    local k, esc = 2, false
    while w[k] and re.match(w[k], "^-[neE]+$") do
      esc = esc or string.find(w[k], "e", 1, true) ~= nil
      k = k + 1
    end
    out = join(w, k)
    if esc then
      out = unescape(out)
    end
  elseif w[1] == "printf" then
    local k = w[2] == "--" and 3 or 2
    local fmt = w[k]
    if not fmt or string.sub(fmt, 1, 1) == "-" or re.find(fmt, [=[%[^sb%]]=]) then
      return nil
    end
    local args = {}
    for j = k + 1, #w do
      args[#args + 1] = w[j]
    end
    out = unescape(string.gsub(printf_fill(fmt, args), "%%%%", "%%"))
  elseif (w[1] == "realpath" or (w[1] == "readlink" and re.match(w[2], "^-[femn]+$"))) and #w == (w[1] == "realpath" and 2 or 3) then
    -- realpath P, readlink -f P: the path itself (norm resolves it)
    out = w[#w]
  elseif w[1] == "dirname" and #w == 2 and string.sub(w[2], 1, 1) ~= "-" then
    out = string.match(w[2], "^(.*[^/])/+[^/]+/*$") or (string.sub(w[2], 1, 1) == "/" and "/" or ".")
  else
    return nil
  end
  out = string.gsub(string.gsub(out, "\n+$", ""), "\n", " ")
  return out
end


-- subst is the text of the word w with what the line knows put in: its
-- variables (vars: name -> value), ${NAME:-DEFAULT}, $IFS as a blank,
-- and the output of the substitutions that only print (see printed),
-- $(which rm), $(pwd) (".") and $(git rev-parse --show-toplevel)
-- (st.root). limit (nil: none) bounds the length of the result. When a
-- word grew past limit, or held more substitutions than BOUNDS lets it
-- read, the rest is left as written and st.over is set (the caller then
-- decides as for a line too complex to read).
local function subst(w, vars, limit, st)
  if not (string.find(w, "$", 1, true) or string.find(w, "`", 1, true)) then
    return w
  end
  -- (each rewrite below runs only when its words occur: a Go call each)
  if string.find(w, "IFS", 1, true) then
    w = re.gsub(w, [[\$\{?IFS\}?]], " ")
  end
  -- ${!NAME}: the variable NAME names (x=cmd; ${!x})
  if string.find(w, "${!", 1, true) then
    w = string.gsub(w, "%${!([%a_][%w_]*)}", function(n)
      local target = vars[n]
      if type(target) == "string" and string.match(target, "^[%a_][%w_]*$") then
        return "${" .. target .. "}"
      end
      return nil
    end)
  end
  for _ = 1, BOUNDS.passes do
    local before = w
    for name, val in pairs(vars) do
      if string.find(w, name, 1, true) and name ~= "IFS" then
        if limit and string.len(w) + string.len(val) > limit then
          st.over = true
          break
        end
        local v = string.gsub(val, "%$", "$$")
        if val ~= "" and string.find(w, "${", 1, true) then
          w = re.gsub(w, [[\$\{]] .. name .. [[:?[-=][^{}]*\}]], v)
        end
        w = re.gsub(w, [[\$\{]] .. name .. [[\}|\$]] .. name .. [[\b]], v)
        -- ${NAME%/}, ${NAME#*/}, ${NAME/a/b}, ${NAME:1}: the operator on
        -- the value
        if string.find(w, "${" .. name, 1, true) then
          w = string.gsub(w, "%${" .. name .. "([%%#/:^,][^{}]*)}", function(op)
            return param_op(val, op)
          end)
        end
      end
    end
    if w == before or not string.find(w, "$", 1, true) then
      break
    end
  end
  -- ${NAME:-DEFAULT} of a variable the line does not set: the default
  -- (but $HOME and $PWD, which the pack knows)
  if string.find(w, "${", 1, true) then
    w = string.gsub(w, "%${([%a_][%w_]*):?[-=]([^{}$]*)}", function(n, d)
      if n == "HOME" or n == "PWD" then
        return "$" .. n
      end
      return d
    end)
  end
  -- $(printf 'rm -rf %s' "$HOME"), $(echo "$v"), `cat <<< /`: what they
  -- print, innermost first ($(echo $(echo /))): the last BOUNDS.printed
  -- of a word no longer than BOUNDS.printed_word (each copies the word)
  -- (past them the word keeps the rest as written and st.over is set)
  if string.find(w, "$(", 1, true) and string.len(w) > BOUNDS.printed_word then
    st.over = true
  elseif string.find(w, "$(", 1, true) then
    local ats, from = {}, 1
    while true do
      local at = string.find(w, "$(", from, true)
      if not at then
        break
      end
      ats[#ats + 1] = at
      from = at + 2
    end
    if #ats > BOUNDS.printed then
      st.over = true
    end
    -- (a replacement moves nothing before it)
    for k = #ats, math.max(1, #ats - BOUNDS.printed + 1), -1 do
      local at = ats[k]
      local body = string.match(w, "^%b()", at + 1)
      local out = body and printed(string.sub(body, 2, -2))
      if out then
        w = string.sub(w, 1, at - 1) .. out .. string.sub(w, at + 1 + string.len(body))
      end
    end
  end
  if string.find(w, "`", 1, true) then
    w = string.gsub(w, "`([^`]*)`", function(body)
      return printed(body)
    end)
  end
  -- $(which rm), $(command -v rm), `type -P rm`: the program's path
  if string.find(w, "$(", 1, true) or string.find(w, "`", 1, true) then
    w = re.gsub(w, [=[\$\(\s*(?:which|command\s+-[vV]|type\s+-[pP]|whence\s+-p)\s+([A-Za-z0-9_.+-]+)\s*\)|`\s*(?:which|command\s+-[vV]|type\s+-[pP]|whence\s+-p)\s+([A-Za-z0-9_.+-]+)\s*`]=], "${1}${2}")
  end
  if string.find(w, "PWD", 1, true) or string.find(w, "pwd", 1, true) then
    w = re.gsub(w, [[\$\{PWD(?::?[-?=+][^}]*)?\}|\$PWD\b|\$\(\s*pwd\s*\)|`\s*pwd\s*`]], ".")
  end
  if string.find(w, "rev-parse", 1, true) then
    w = re.gsub(w, [[\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|`\s*git\s+rev-parse\s+--show-toplevel\s*`]], (string.gsub(st.root or ".", "%$", "$$")))
  end
  return w
end

-- assign sets the variable n of vars to the value v as written, expanded
-- as the shell does when it assigns (subst, with limit and st), and
-- returns it.
local function assign(vars, n, v, limit, st)
  v = subst(v, vars, limit, st)
  vars[n] = v
  return v
end

return {
  ---The bounds of the resolution (passes, printed, printed_word).
  BOUNDS = BOUNDS,
  ---@type fun(words: string[], from: integer?): string
  join = join,
  ---@type fun(fmt: string, args: string[]): string
  printf_fill = printf_fill,
  ---@type fun(s: string): string
  unescape = unescape,
  ---@type fun(val: string, op: string): string?
  param_op = param_op,
  ---@type fun(body: string): string?
  printed = printed,
  ---@type fun(w: string, vars: table<string, string>, limit: integer?, st: {root: string?, over: boolean?}): string
  subst = subst,
  ---@type fun(vars: table<string, string>, n: string, v: string, limit: integer?, st: table): string
  assign = assign,
}
