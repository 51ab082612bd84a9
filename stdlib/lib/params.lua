--- monad.params: the parameters of a stdlib pack, checked against the
--- pack's declaration.
---
--- A pack declares its parameters once, in its SPEC table (one line per
--- parameter: `name = { "type", default },` after its "--" documentation
--- lines). The Go side (package stdlib) reads the same table for the pack's
--- documentation and for checking a configuration before it loads; this
--- library checks it again as the pack loads, so that a host that skips the
--- Go check still gets a load error rather than a silently disarmed guard:
---
---     local P = require("monad.params").check(PACK, SPEC, params)

local re = require("re")

-- MAX_ITEMS bounds the items of a list parameter.
local MAX_ITEMS = 100000

-- list_copy copies a list through indexing, so that it works on the
-- read-only proxy tables the params global is made of; it returns nil for
-- a list longer than MAX_ITEMS (never a silently shortened copy).
local function list_copy(v)
  local out = {}
  for i = 1, MAX_ITEMS do
    local e = v[i]
    if e == nil then
      return out
    end
    out[i] = e
  end
  if v[MAX_ITEMS + 1] ~= nil then
    return nil
  end
  return out
end

-- check returns the pack's configuration: given (the pack's read-only
-- params global) over the defaults of spec, type-checked.
local function check(pack, spec, given)
  given = given or {}
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
      -- a JSON object is not a list, even an empty one
      ok = type(v) == "table" and getmetatable(v) ~= "json.object"
      if ok then
        v = list_copy(v)
        if v == nil then
          error(pack .. ": parameter " .. k .. ": more than " .. MAX_ITEMS .. " items", 0)
        end
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

return {
  ---Returns the pack's configuration: given (its params global) over the
  ---defaults of spec, every value checked against its declared type. An
  ---unknown parameter, a value of the wrong type or an invalid regular
  ---expression raises "<pack>: parameter <name>: ...".
  ---@type fun(pack: string, spec: table<string, table>, given: table?): table<string, any>
  check = check,
}
