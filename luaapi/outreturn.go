package luaapi

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Direct outputs.
//
// A handler that returns a table constructor, `return { decision = "deny",
// reason = ... }`, makes gopher-lua build a table: a Go map, a key slice
// and a key-index map, about ten allocations and 800 bytes that the call
// reads two fields of and drops (a third of a denying guard's dispatch,
// BenchmarkLuaGuardPeers). So Compile rewrites each such return in the body
// of a handler written in a hook{} call (the function literal of its
// handler key; not in the functions nested in it) into a call of a host
// function that takes the field values instead:
//
//	return { decision = d, reason = r }   -- becomes
//	return (<outputFunc>(d, r, <shape>))
//
// where <shape> is a number constant naming the fields in order, and
// <outputFunc> a global of the sandbox whose name (outputFuncName) starts
// with a NUL byte, so that no identifier names it: a script reaches it only
// as _G["\0output"], where it behaves as described below, and cannot assign
// it (see luaSetGlobal). The values are evaluated as
// the constructor evaluates them, in order, each truncated to one value
// (the shape comes last, so no call or ... is the last argument).
//
// When the function is the handler of the VM's current call, called by the
// pool itself (no Lua frame below it), its return value goes nowhere but
// to readOutput: the host function keeps the values in vm.outVals and
// returns vm.outToken, which readOutput reads them from. Called any other
// way (by Lua code that got hold of the handler, or while a
// script loads), it builds the table the constructor would have built, the
// same keys set in the same order. Only constructors of distinct HookOutput
// keys, all named (`name = value` or `["name"] = value`), are rewritten;
// and a chunk that the rewrite would make too large for gopher-lua's
// compiler (registers, constants) is compiled as written.
const outputFuncName = "\x00output"

// rewriteReturns rewrites the returns of the handlers of the hook{} calls
// (see above) and returns a function that undoes it.
func rewriteReturns(hookCalls []*ast.FuncCallExpr) (undo func(), n int) {
	type change struct {
		stmt *ast.ReturnStmt
		old  ast.Expr
	}
	var changes []change
	var walk func(stmts []ast.Stmt)
	walk = func(stmts []ast.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *ast.ReturnStmt:
				if call := outputCall(s); call != nil {
					changes = append(changes, change{s, s.Exprs[0]})
					s.Exprs[0] = call
				}
			case *ast.DoBlockStmt:
				walk(s.Stmts)
			case *ast.WhileStmt:
				walk(s.Stmts)
			case *ast.RepeatStmt:
				walk(s.Stmts)
			case *ast.IfStmt:
				walk(s.Then)
				walk(s.Else)
			case *ast.NumberForStmt:
				walk(s.Stmts)
			case *ast.GenericForStmt:
				walk(s.Stmts)
			}
		}
	}
	for _, c := range hookCalls {
		spec, ok := c.Args[0].(*ast.TableExpr)
		if !ok {
			continue
		}
		for _, f := range spec.Fields {
			if k, ok := f.Key.(*ast.StringExpr); ok && k.Value == "handler" {
				if fn, ok := f.Value.(*ast.FunctionExpr); ok {
					walk(fn.Stmts)
				}
			}
		}
	}
	return func() {
		for _, c := range changes {
			c.stmt.Exprs[0] = c.old
		}
	}, len(changes)
}

// outputCall returns the call that replaces the table constructor s
// returns, or nil when s returns anything else.
func outputCall(s *ast.ReturnStmt) *ast.FuncCallExpr {
	if len(s.Exprs) != 1 {
		return nil
	}
	t, ok := s.Exprs[0].(*ast.TableExpr)
	if !ok || len(t.Fields) == 0 || len(t.Fields) > len(outputKeys) {
		return nil
	}
	args := make([]ast.Expr, 0, len(t.Fields)+1)
	var seen [len(outputKeys)]bool
	shape := 0
	for j, f := range t.Fields {
		k, ok := f.Key.(*ast.StringExpr)
		if !ok {
			return nil
		}
		i := outputKeyIndex(k.Value)
		if i < 0 || seen[i] {
			return nil
		}
		seen[i] = true
		shape |= (i + 1) << (4 * j)
		args = append(args, f.Value)
	}
	shapeExpr := &ast.NumberExpr{Value: strconv.Itoa(shape)}
	fn := &ast.IdentExpr{Value: outputFuncName}
	call := &ast.FuncCallExpr{Func: fn, Args: append(args, shapeExpr), AdjustRet: true}
	for _, e := range []ast.PositionHolder{shapeExpr, fn, call} {
		e.SetLine(t.Line())
		e.SetLastLine(t.LastLine())
	}
	return call
}

// luaOutput is the host function of outputFuncName: (values..., shape).
func (v *vm) luaOutput(L *lua.LState) int {
	top := L.GetTop()
	var keys [len(outputKeys)]int
	n := 0
	if sh, ok := L.Get(top).(lua.LNumber); ok && float64(sh) == float64(int64(sh)) {
		for x := int64(sh); x > 0 && n < len(keys); x >>= 4 {
			keys[n] = int(x&15) - 1
			n++
		}
		if int64(sh)>>(4*n) != 0 {
			n = -1
		}
	}
	if n != top-1 || n < 1 {
		L.RaiseError("internal function misused")
	}
	for j := range n {
		if keys[j] < 0 || keys[j] >= len(outputKeys) {
			L.RaiseError("internal function misused")
		}
	}
	if v.handlerDirect(L) {
		// Only this return's fields: an earlier call of the function
		// by the handler (by its hidden name) must not add its own.
		v.outVals = [len(outputKeys)]lua.LValue{}
		for j := range n {
			v.outVals[keys[j]] = L.Get(j + 1)
		}
		v.outSet = true
		v.pl.work.directOuts.Add(1)
		L.Push(v.outToken)
		return 1
	}
	t := L.CreateTable(0, n)
	for j := range n {
		t.RawSetString(outputKeys[keys[j]], L.Get(j+1))
	}
	L.Push(t)
	return 1
}

// handlerDirect reports whether the function calling the running host function is
// the handler of the current call, called by the pool: what it returns goes
// to readOutput only.
func (v *vm) handlerDirect(L *lua.LState) bool {
	if L != v.L || !v.inHandler {
		return false
	}
	// Level 1 is the handler; a level 2 would be Lua code that called it.
	_, deeper := L.GetStack(2)
	return !deeper
}

// forgetOutput drops what a rewritten return kept, after the call: the VM
// keeps no value of a call, and a later call that returns outToken without
// a rewritten return of its own gets the error of a userdata.
func (v *vm) forgetOutput() {
	v.outVals = [len(outputKeys)]lua.LValue{}
	v.outSet = false
}
