package luaapi

import _ "embed"

// TypeDefinitions is the LuaLS definition file (---@meta) of the Lua API:
// hook{}, the input and output tables, params and every host module. A tool
// can write it next to users' hooks for editor completion. A test keeps it
// in step with the Go side.
//
//go:embed types/monad-hooks.d.lua
var TypeDefinitions string
