-- Lua 5.1's pattern functions on cases where implementations differ.
-- Run by PUC Lua 5.1 (scripts/lua51-golden.sh), it writes patterns.out,
-- the expected results; luaapi's TestPatternsMatchLua51 runs it as a hook
-- and compares. Each line: a case's name, "=>", its results (strings
-- quoted, bytes outside printable ASCII as \NNN; an error as "error: " and
-- its message without the "chunk:line: " position).

local function esc(s)
  local out = {}
  for i = 1, #s do
    local b = string.byte(s, i)
    if b < 32 or b > 126 or b == 92 or b == 34 then
      out[#out + 1] = "\\" .. b
    else
      out[#out + 1] = string.char(b)
    end
  end
  return '"' .. table.concat(out) .. '"'
end

local function show(v)
  if type(v) == "string" then
    return esc(v)
  elseif type(v) == "table" then
    return v.rendered -- from all
  end
  return tostring(v)
end

local function values(...)
  local out = {}
  for i = 1, select("#", ...) do
    out[#out + 1] = show((select(i, ...)))
  end
  return table.concat(out, ",")
end

local function result(ok, ...)
  if ok then
    return values(...)
  end
  local msg = tostring((...))
  local _, e = string.find(msg, "^[^:]*:%d+: ")
  if e then
    msg = string.sub(msg, e + 1)
  end
  return "error: " .. msg
end

-- all runs an iterator function to its end (at most 20 rounds) and returns
-- the rendered rounds, separated by ";".
local function all(iter, s, p)
  local out = {}
  local f = iter(s, p)
  for _ = 1, 20 do
    local r = { f() }
    if r[1] == nil then
      break
    end
    out[#out + 1] = values(unpack(r))
  end
  return { rendered = "[" .. table.concat(out, ";") .. "]" }
end

local S = string
local cases = {
  -- A back-reference to a position capture finds no match.
  { "find ()%1", function() return S.find("a", "()%1") end },
  { "find (a)()%2", function() return S.find("aa", "(a)()%2") end },
  { "match ()%1", function() return S.match("abc", "()%1") end },
  { "match ()x%1", function() return S.match("xx", "()x%1") end },
  { "gsub ()%1", function() return S.gsub("abc", "()%1", "x") end },
  { "gmatch ()%1", function() return all(S.gmatch, "abc", "()%1") end },
  { "find (a)%1 one a", function() return S.find("a", "(a)%1") end },
  { "find (a)%1 two a", function() return S.find("aa", "(a)%1") end },
  { "find %1 no capture", function() return S.find("a", "%1") end },
  { "find (%1) unfinished", function() return S.find("a", "(%1)") end },
  { "find %0", function() return S.find("a", "%0") end },

  -- string.gfind is string.gmatch (LUA_COMPAT_GFIND).
  { "gfind type", function() return type(S.gfind) end },
  { "gfind is gmatch", function() return S.gfind == S.gmatch end },
  { "gfind", function() return all(S.gfind, "a b c", "%a") end },

  -- init past the end is clamped to the end.
  { "find empty init 10", function() return S.find("abc", "", 10) end },
  { "find empty init 4", function() return S.find("abc", "", 4) end },
  { "find empty init 5", function() return S.find("abc", "", 5) end },
  { "find empty init 3", function() return S.find("abc", "", 3) end },
  { "find c init 10", function() return S.find("abc", "c", 10) end },
  { "find () init 10", function() return S.find("abc", "()", 10) end },
  { "find $ init 10", function() return S.find("abc", "$", 10) end },
  { "match () init 10", function() return S.match("abc", "()", 10) end },
  { "match . init 10", function() return S.match("abc", ".", 10) end },
  { "match ^(.*)$ init 100", function() return S.match("abc", "^(.*)$", 100) end },
  { "find empty subject init 3", function() return S.find("", "", 3) end },
  { "find a* empty subject init 3", function() return S.find("", "a*", 3) end },
  { "find init -10", function() return S.find("abc", "", -10) end },
  { "match init -1", function() return S.match("abc", "()", -1) end },
  { "find plain init 10", function() return S.find("abc", "", 10, true) end },
  { "find plain b init 10", function() return S.find("abc", "b", 10, true) end },

  -- A '%' ending a replacement string writes the string's terminating NUL.
  { "gsub x%", function() return S.gsub("abc", "b", "x%") end },
  { "gsub %", function() return S.gsub("abc", "b", "%") end },
  { "gsub empty %", function() return S.gsub("abc", "", "%") end },
  { "gsub %1%", function() return S.gsub("abc", "(b)", "%1%") end },
  { "gsub %%", function() return S.gsub("abc", "b", "%%") end },
  { "gsub %x", function() return S.gsub("abc", "b", "%x") end },
  { "gsub %2 no capture", function() return S.gsub("abc", "b", "%2") end },
  { "gsub %2 one capture", function() return S.gsub("abc", "(b)", "%2") end },
  { "gsub %1 position", function() return S.gsub("abc", "()b", "%1") end },
  { "gsub %1 whole", function() return S.gsub("abc", "b", "[%1]") end },

  -- gmatch: '^' is an ordinary character.
  { "gmatch ^a", function() return all(S.gmatch, "^a^a", "^a") end },
  { "gmatch ^a no caret", function() return all(S.gmatch, "aaa", "^a") end },
  { "gmatch ^", function() return all(S.gmatch, "a^b", "^") end },
  { "gmatch ^h", function() return all(S.gmatch, "hello", "^h") end },
  { "gmatch ^(%a+)", function() return all(S.gmatch, "^one ^two", "^(%a+)") end },
  { "gmatch empty matches", function() return all(S.gmatch, "abc", "x*") end },
  { "gmatch positions", function() return all(S.gmatch, "abc", "()(.)") end },

  -- Where stock gopher-lua departs from Lua 5.1.
  { "frontier", function() return S.find("THE (quick) fox", "%f[%a]%a+") end },
  { "frontier init 2", function() return S.find("THE (quick) fox", "%f[%a]%a+", 2) end },
  { "frontier gsub", function() return S.gsub("THE (quick) fox", "%f[%w]%w+", "<%0>") end },
  { "frontier upper", function() return S.gsub("hello world from Lua", "%f[%a]%a", S.upper) end },
  { "frontier end", function() return S.find("ab", "%f[%z]") end },
  { "gsub unfinished capture %0", function() return S.gsub("hello", "(()", "<%0>") end },
  { "gsub open capture", function() return S.gsub("abc", "(", "x") end },
  { "gsub open capture %1", function() return S.gsub("abc", "(", "%1") end },
  { "find ends with %", function() return S.find("hello", "%") end },
  { "class [0--]", function() return S.find("a00", "[0--]") end },
  { "class [a-]", function() return S.match("a-b", "[a-]+") end },
  { "class []]", function() return S.match("a]b", "[]]") end },
  { "class []", function() return S.match("a", "[]") end },
  { "class [^]", function() return S.match("^", "[^]") end },
  { "class [^]]", function() return S.match("]a", "[^]]") end },
  { "class [%]]", function() return S.match("a]", "[%]]") end },

  -- Errors.
  { "missing ]", function() return S.find("a", "[a") end },
  { "find unfinished capture", function() return S.find("a", "(()") end },
  { "invalid pattern capture", function() return S.match("a", "a)") end },
  { "unbalanced %b", function() return S.find("a", "%b") end },
  { "unbalanced %ba", function() return S.find("a", "%ba") end },
  { "%f without [", function() return S.find("a", "%fx") end },
  { "too many captures", function() return S.find("a", S.rep("(", 33) .. "a" .. S.rep(")", 33)) end },
  { "32 captures", function() return select("#", S.find("a", S.rep("(", 32) .. "a" .. S.rep(")", 32))) end },

  -- gsub replacements.
  { "gsub table miss", function() return S.gsub("abc", "b", {}) end },
  { "gsub table hit", function() return S.gsub("abc", "(b)", { b = "B" }) end },
  { "gsub table true", function() return S.gsub("abc", "b", { b = true }) end },
  { "gsub table false", function() return S.gsub("abc", "b", { b = false }) end },
  { "gsub table position", function() return S.gsub("abc", "()b", { [2] = "two" }) end },
  { "gsub function number", function() return S.gsub("abc", "b", function() return 12 end) end },
  { "gsub function table", function() return S.gsub("abc", "b", function() return {} end) end },
  { "gsub function captures", function() return S.gsub("k=v", "(%w)=(%w)", function(a, b) return b .. a end) end },
  { "gsub number repl", function() return S.gsub("abc", "b", 1.5) end },
  { "gsub max -1", function() return S.gsub("abc", "b", "x", -1) end },
  { "gsub max 0", function() return S.gsub("abc", "b", "x", 0) end },
  { "gsub max 2 empty", function() return S.gsub("abc", "", "-", 2) end },
  { "gsub ^", function() return S.gsub("abc", "^", "-") end },
  { "gsub ^b", function() return S.gsub("abc", "^b", "-") end },
  { "gsub ^a*", function() return S.gsub("aab", "^a*", "-") end },

  -- Plain searches.
  { "find plain .", function() return S.find("a.b", ".", 1, true) end },
  { "find no specials a)", function() return S.find("a)b", "a)") end },
  { "match a)", function() return S.match("a)b", "a)") end },
  { "find +", function() return S.find("a+b", "+") end },

  -- Classes and items.
  { "%z", function() return S.find("a\0b", "%z") end },
  { "[%z]", function() return S.match("a\0b", "[%z]") end },
  { "%U+", function() return S.match("ABC def", "%U+") end },
  { "%a on byte 233", function() return S.match("\233", "%a") end },
  { "%p", function() return S.match("a!?b", "%p+") end },
  { "%c", function() return S.find("a\tb", "%c") end },
  { "%x", function() return S.match("zz ff0A", "%x+") end },
  { "dates", function() return S.match("2024-01-02", "(%d+)-(%d+)-(%d+)") end },
  { "key value", function() return S.match("key = value", "(%w+)%s*=%s*(%w+)") end },
  { "trim", function() return S.match("  x y  ", "^%s*(.-)%s*$") end },
  { "balanced", function() return S.match("f(a(b)c)d", "%b()") end },
  { "balanced unclosed", function() return S.match("f(a(b", "%b()") end },
  { "lazy", function() return S.match("<a><b>", "<(.-)>") end },
  { "optional", function() return S.match("color colour", "colou?r", 2) end },
  { "$ inside", function() return S.match("a$b", "a$b") end },
  { "^ inside", function() return S.match("a^b", "a^b") end },
}

local function run()
  local lines = {}
  for _, c in ipairs(cases) do
    lines[#lines + 1] = c[1] .. " => " .. result(pcall(c[2]))
  end
  return table.concat(lines, "\n") .. "\n"
end

if hook then
  hook{ event = "BeforeTool", handler = function() return { additionalContext = run() } end }
else
  io.write(run())
end
