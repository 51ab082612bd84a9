--- pack: redact-pii
--- summary: Replace personal data (emails, phone numbers, payment cards, IBANs, US SSNs) with a marker naming its kind.
--- events: BeforeModel, AfterTool, AfterModel, AfterSubagent, AfterTurn
---
--- Opt-in companion of redact-secrets, at the same events and with the
--- same walk through nested JSON values. It replaces:
---
--- - `email`: addresses such as `jane.doe@mail.example-corp.com`, except
---   the reserved example domains (`example.com`, `.org`, `.net`,
---   `*.example`, `*.test`, `*.invalid`, `localhost`), `git@` and
---   `noreply`/`no-reply` senders, and names whose top-level domain is a
---   file extension (`icon@2x.png`);
--- - `phone`: international numbers with a `+` and a country code
---   (`+44 20 7946 0958`, `+1-415-555-0132`, `+44 (0)20 7946 0958`), and North-American numbers
---   written with separators (`(415) 555-0132`, `415-555-0132`,
---   `415.555.0132`);
--- - `card`: 13 to 19 digit payment card numbers (with spaces or dashes)
---   that have a known issuer prefix and length and pass the Luhn check;
--- - `iban`: IBANs of a known country and length that pass the mod-97
---   check, with or without spaces;
--- - `ssn`: US social security numbers written `AAA-GG-SSSS` with a valid
---   area, group and serial.
---
--- It is conservative: it leaves alone version numbers, dates and times,
--- IP addresses, hashes, UUIDs, order and invoice numbers that fail the
--- checksums, and numbers without the separators a phone number is
--- written with.

local re = require("re")

local PACK = "redact-pii"

local SPEC = {
  -- RE2 matched against the tool name at AfterTool ("" means every tool).
  matcher = { "regex", "" },
  -- The events to redact at; a subset of the pack's events.
  events = { "[]BeforeModel|AfterTool|AfterModel|AfterSubagent|AfterTurn", { "BeforeModel", "AfterTool", "AfterModel", "AfterSubagent", "AfterTurn" } },
  -- The kinds to redact: email, phone, card, iban, ssn.
  kinds = { "[]email|phone|card|iban|ssn", { "email", "phone", "card", "iban", "ssn" } },
  -- Email domains (or globs like *.corp.example) that are left alone.
  allowDomains = { "[]string", {} },
  -- RE2 expressions for values that are never redacted.
  allow = { "[]regex", {} },
}

local P = require("monad.params").check(PACK, SPEC, params)

-- The shared rule engine and hooks of the redacting packs
-- (stdlib/lib/redact.lua).
local R = require("monad.redact")
local register, hits, has = R.register, R.hits, R.has

local function digits(s)
  return re.gsub(s, "[^0-9]", "")
end

-- luhn reports whether a digit string passes the Luhn check.
local function luhn(d)
  local sum, alt = 0, false
  for i = string.len(d), 1, -1 do
    local n = string.byte(d, i) - 48
    if alt then
      n = n * 2
      if n > 9 then
        n = n - 9
      end
    end
    sum = sum + n
    alt = not alt
  end
  return sum % 10 == 0
end

-- card_ok checks issuer prefix, length and Luhn.
local function card_ok(v)
  local d = digits(v)
  local n = string.len(d)
  if n < 13 or n > 19 then
    return false
  end
  if string.rep(string.sub(d, 1, 1), n) == d then
    return false
  end
  local ok =
    (re.match(d, "^4") and (n == 13 or n == 16 or n == 19)) or
    (re.match(d, "^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))") and n == 16) or
    (re.match(d, "^3[47]") and n == 15) or
    (re.match(d, "^(6011|65|64[4-9]|622)") and n >= 16) or
    (re.match(d, "^35(2[89]|[3-8][0-9])") and n >= 16) or
    (re.match(d, "^(30[0-5]|36|38|39)") and n >= 14) or
    (re.match(d, "^(62|81)") and n >= 16)
  if not ok then
    return false
  end
  -- grouping: all digits, or groups separated consistently
  if string.find(v, "[ -]") and not re.match(v, [[^\d{4}([ -]\d{4}){2,3}([ -]\d{1,3})?$|^\d{4}[ -]\d{6}[ -]\d{4,5}$]]) then
    return false
  end
  return luhn(d)
end

local IBAN_LEN = {
  AD = 24, AE = 23, AL = 28, AT = 20, AZ = 28, BA = 20, BE = 16, BG = 22, BH = 22, BR = 29,
  BY = 28, CH = 21, CR = 22, CY = 28, CZ = 24, DE = 22, DK = 18, DO = 28, EE = 20, EG = 29,
  ES = 24, FI = 18, FO = 18, FR = 27, GB = 22, GE = 22, GI = 23, GL = 18, GR = 27, GT = 28,
  HR = 21, HU = 28, IE = 22, IL = 23, IQ = 23, IS = 26, IT = 27, JO = 30, KW = 30, KZ = 20,
  LB = 28, LC = 32, LI = 21, LT = 20, LU = 20, LV = 21, MC = 27, MD = 24, ME = 22, MK = 19,
  MR = 27, MT = 31, MU = 30, NL = 18, NO = 15, PK = 24, PL = 28, PS = 29, PT = 25, QA = 29,
  RO = 24, RS = 22, SA = 24, SC = 31, SE = 24, SI = 19, SK = 24, SM = 27, ST = 25, SV = 28,
  TL = 23, TN = 24, TR = 26, UA = 29, VA = 22, VG = 24, XK = 20,
}

-- iban_ok checks the country length and the mod-97 checksum.
local function iban_ok(v)
  local s = string.upper(re.gsub(v, " ", ""))
  local cc = string.sub(s, 1, 2)
  if IBAN_LEN[cc] == nil or IBAN_LEN[cc] ~= string.len(s) then
    return false
  end
  local r = string.sub(s, 5) .. string.sub(s, 1, 4)
  local rem = 0
  for i = 1, string.len(r) do
    local c = string.byte(r, i)
    if c >= 48 and c <= 57 then
      rem = (rem * 10 + (c - 48)) % 97
    elseif c >= 65 and c <= 90 then
      rem = (rem * 100 + (c - 55)) % 97
    else
      return false
    end
  end
  return rem == 1
end

local function ssn_ok(v)
  local a, g, s = string.match(v, "^(%d%d%d)%-(%d%d)%-(%d%d%d%d)$")
  if a == nil or a == "000" or a == "666" or string.sub(a, 1, 1) == "9" or g == "00" or s == "0000" then
    return false
  end
  if a .. g .. s == "123456789" or a .. g .. s == "078051120" then
    return true
  end
  return true
end

local EXT_TLD = [[(?i)\.(png|jpe?g|gif|svg|webp|ico|bmp|js|mjs|ts|tsx|jsx|css|scss|map|json|lock|md|txt|py|go|rs|rb|java|kt|h|c|cpp|html?|xml|ya?ml|toml|zip|gz|tgz|wasm|so|dll|exe|bin|pdf|log|csv)$]]

local ALLOW_DOM = {}
for _, g in ipairs(P.allowDomains) do
  ALLOW_DOM[#ALLOW_DOM + 1] = "(?i)^" .. re.gsub(re.gsub(g, [[([.+?^$(){}\[\]|\\])]], [[\$1]]), [[\*]], ".*") .. "$"
end

local function email_ok(v)
  local user, dom = string.match(v, "^(.*)@(.*)$")
  if user == nil then
    return false
  end
  local ldom = string.lower(dom)
  local luser = string.lower(user)
  if re.match(ldom, [[(^|\.)(example\.(com|org|net)|example|test|invalid|localhost|local)$]]) then
    return false
  end
  if luser == "git" or re.find(luser, "^(no-?reply|donotreply|do-not-reply)") or re.find(ldom, "(^|\\.)users\\.noreply\\.github\\.com$") then
    return false
  end
  if re.find(ldom, EXT_TLD) or re.find(ldom, [[\.[0-9]+$]]) then
    return false
  end
  for _, rx in ipairs(ALLOW_DOM) do
    if re.match(ldom, rx) then
      return false
    end
  end
  return true
end

local function phone_ok(v)
  local d = digits(v)
  local n = string.len(d)
  if string.sub(v, 1, 1) == "+" then
    return n >= 8 and n <= 15
  end
  return n == 10 or n == 11
end

local ALL = {
  email = { kind = "email", kw = { "@" }, pre = [[(?:^|[^A-Za-z0-9._%+-])]],
    val = [[[A-Za-z0-9](?:[A-Za-z0-9._%+-]|'[A-Za-z0-9]){0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}]],
    post = [[(?:$|[^A-Za-z0-9_-])]], check = email_ok },
  phone = { kind = "phone", pre = [[(?:^|[^\w.+/:-])]],
    val = [[\+[1-9]\d{0,2}(?:[ .-]\(?\d{1,5}\)?){1,5}[ .-]\d{2,8}|\+[1-9]\d{0,2}[ .-]?\(0\)[ .-]?\d{1,5}(?:[ .-]\d{1,5}){0,4}[ .-]\d{2,8}|\+[1-9]\d{7,14}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|1[ .-]\d{3}[ .-]\d{3}[ .-]\d{4}]],
    post = [[(?:$|[^\w.:/-]|\.(?:$|\s))]], check = phone_ok },
  card = { kind = "card", pre = [[(?:^|[^\w.-])]],
    val = [[\d{4}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?|\d{4}[ -]?\d{6}[ -]?\d{4,5}|\d{13,19}]],
    post = [[(?:$|[^\w.-]|\.(?:$|\s))]], check = card_ok },
  iban = { kind = "iban", pre = [[(?:^|[^A-Za-z0-9])]],
    val = [[[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?]],
    post = [[(?:$|[^A-Za-z0-9])]], check = iban_ok },
  ssn = { kind = "ssn", kw = { "-" }, pre = [[(?:^|[^\w.-])]], val = [[\d{3}-\d{2}-\d{4}]],
    post = [[(?:$|[^\w.-]|\.(?:$|\s))]], check = ssn_ok },
}

local rules = {}
for _, k in ipairs({ "email", "card", "iban", "ssn", "phone" }) do
  if has(P.kinds, k) then
    rules[#rules + 1] = ALL[k]
  end
end

register(rules, P)
