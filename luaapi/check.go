package luaapi

import (
	"github.com/yuin/gopher-lua/ast"
)

// checkChunk rejects constructs that gopher-lua v1.1.2 miscompiles.
//
// Issue #490: in an assignment to an existing local variable of the current
// function (`r = <expr>`, also in a multiple assignment), gopher-lua writes
// the result of an and/or expression straight into the local's register,
// except for an operand whose falsy value ends the expression early when
// that operand is a general expression (a call, `not`, arithmetic, a field,
// a global or upvalue...): its value stays in a temporary register and the
// local keeps its old value. So with `local r = true`, all of
//
//	r = r and (F() and T())
//	r = (F() and T()) and r
//	r = F() and 1
//	r = not x and y
//
// leave r true when F() returns false or x is truthy. Declarations (`local
// q = ...`), globals, upvalues, table fields, returns, arguments and
// conditions are compiled differently and are not affected.
//
// The check follows gopher-lua's code generator: it walks the and/or tree
// of the right-hand side with the "falsy exit goes to the end" and "truthy
// exit" flags the compiler threads through compileLogicalOpExprAux, and
// flags every operand that is compiled with OP_TEST (not OP_TESTSET) while
// its falsy exit ends the expression. An operand is safe only if it is a
// constant, a comparison, or a local variable of the function; everything
// else is treated as affected. A differential test (TestIssue490Differential)
// checks on random expressions that every assignment the check accepts
// evaluates as Lua 5.1 would.
func checkChunk(name string, chunk []ast.Stmt) error {
	c := &checker{name: name}
	c.pushFunc(nil)
	c.block(chunk)
	c.popFunc()
	return c.err
}

type checker struct {
	name  string
	funcs [][]map[string]bool // per function, a stack of block scopes
	err   error
}

func (c *checker) pushFunc(params []string) {
	scope := map[string]bool{}
	for _, p := range params {
		scope[p] = true
	}
	c.funcs = append(c.funcs, []map[string]bool{scope})
}

func (c *checker) popFunc() { c.funcs = c.funcs[:len(c.funcs)-1] }

func (c *checker) pushBlock() {
	f := &c.funcs[len(c.funcs)-1]
	*f = append(*f, map[string]bool{})
}

func (c *checker) popBlock() {
	f := &c.funcs[len(c.funcs)-1]
	*f = (*f)[:len(*f)-1]
}

func (c *checker) declare(names ...string) {
	f := c.funcs[len(c.funcs)-1]
	for _, n := range names {
		f[len(f)-1][n] = true
	}
}

// isLocal reports whether name is a local variable of the current function
// (not an upvalue, not a global).
func (c *checker) isLocal(name string) bool {
	f := c.funcs[len(c.funcs)-1]
	for i := len(f) - 1; i >= 0; i-- {
		if f[i][name] {
			return true
		}
	}
	return false
}

func (c *checker) fail(line int, msg string) {
	if c.err == nil {
		c.err = &ScriptError{Script: c.name, Line: line, Msg: msg}
	}
}

func (c *checker) block(stmts []ast.Stmt) {
	c.pushBlock()
	c.stmts(stmts)
	c.popBlock()
}

func (c *checker) stmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		if c.err != nil {
			return
		}
		c.stmt(s)
	}
}

func (c *checker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, e := range s.Lhs {
			c.expr(e)
		}
		for _, e := range s.Rhs {
			c.expr(e)
		}
		for i, lhs := range s.Lhs {
			id, ok := lhs.(*ast.IdentExpr)
			if !ok || i >= len(s.Rhs) || !c.isLocal(id.Value) {
				continue
			}
			if line, bad := miscompiledLogical(s.Rhs[i], c.isLocal); bad {
				if line == 0 {
					line = s.Line()
				}
				c.fail(line, "gopher-lua miscompiles an and-expression assigned to the existing local '"+id.Value+
					"' (issue #490: a false operand may leave the old value in place); "+
					"rewrite as: if not (...) then "+id.Value+" = false end, or assign through a new local: "+
					"local ok = <expression>; "+id.Value+" = ok")
				return
			}
		}
	case *ast.LocalAssignStmt:
		for _, e := range s.Exprs {
			c.expr(e)
		}
		c.declare(s.Names...)
	case *ast.FuncCallStmt:
		c.expr(s.Expr)
	case *ast.DoBlockStmt:
		c.block(s.Stmts)
	case *ast.WhileStmt:
		c.expr(s.Condition)
		c.block(s.Stmts)
	case *ast.RepeatStmt:
		c.pushBlock()
		c.stmts(s.Stmts)
		c.expr(s.Condition)
		c.popBlock()
	case *ast.IfStmt:
		c.expr(s.Condition)
		c.block(s.Then)
		c.block(s.Else)
	case *ast.NumberForStmt:
		c.expr(s.Init)
		c.expr(s.Limit)
		c.expr(s.Step)
		c.pushBlock()
		c.declare(s.Name)
		c.block(s.Stmts)
		c.popBlock()
	case *ast.GenericForStmt:
		for _, e := range s.Exprs {
			c.expr(e)
		}
		c.pushBlock()
		c.declare(s.Names...)
		c.block(s.Stmts)
		c.popBlock()
	case *ast.FuncDefStmt:
		if s.Name != nil {
			c.expr(s.Name.Func)
			c.expr(s.Name.Receiver)
		}
		c.function(s.Func, s.Name != nil && s.Name.Method != "")
	case *ast.ReturnStmt:
		for _, e := range s.Exprs {
			c.expr(e)
		}
	}
}

func (c *checker) function(f *ast.FunctionExpr, method bool) {
	if f == nil {
		return
	}
	var params []string
	if method {
		params = append(params, "self")
	}
	if f.ParList != nil {
		params = append(params, f.ParList.Names...)
	}
	c.pushFunc(params)
	c.stmts(f.Stmts)
	c.popFunc()
}

// expr descends into nested function bodies (which have their own locals).
func (c *checker) expr(e ast.Expr) {
	if e == nil || c.err != nil {
		return
	}
	switch e := e.(type) {
	case *ast.FunctionExpr:
		c.function(e, false)
	case *ast.AttrGetExpr:
		c.expr(e.Object)
		c.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			c.expr(f.Key)
			c.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		c.expr(e.Func)
		c.expr(e.Receiver)
		for _, a := range e.Args {
			c.expr(a)
		}
	case *ast.LogicalOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.StringConcatOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		c.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		c.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		c.expr(e.Expr)
	}
}

// miscompiledLogical reports whether e, assigned to an existing local, hits
// issue #490, and the line of the offending operand.
func miscompiledLogical(e ast.Expr, isLocal func(string) bool) (int, bool) {
	lo, ok := e.(*ast.LogicalOpExpr)
	if !ok {
		return 0, false
	}
	// The root: compileLogicalOpExpr. "End" is the label after the whole
	// expression, where the result must be in the target register.
	if lo.Operator == "and" {
		if l, bad := logicalOperand(lo.Lhs, false, true, false, isLocal); bad {
			return l, true
		}
	} else {
		if l, bad := logicalOperand(lo.Lhs, true, false, true, isLocal); bad {
			return l, true
		}
	}
	return logicalOperand(lo.Rhs, true, true, false, isLocal)
}

// logicalOperand mirrors compileLogicalOpExprAux: thenEnd and elseEnd say
// whether the truthy and falsy exits of e go to the end of the whole
// expression, hasNext whether a truthy value short-circuits (the operand is
// the left side of an `or`).
func logicalOperand(e ast.Expr, thenEnd, elseEnd, hasNext bool, isLocal func(string) bool) (int, bool) {
	switch ex := e.(type) {
	case *ast.LogicalOpExpr:
		if ex.Operator == "and" {
			if l, bad := logicalOperand(ex.Lhs, false, elseEnd, false, isLocal); bad {
				return l, true
			}
		} else {
			if l, bad := logicalOperand(ex.Lhs, thenEnd, false, true, isLocal); bad {
				return l, true
			}
		}
		return logicalOperand(ex.Rhs, thenEnd, elseEnd, hasNext, isLocal)
	case *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr, *ast.StringExpr, *ast.RelationalOpExpr:
		return 0, false
	case *ast.IdentExpr:
		if isLocal(ex.Value) {
			return 0, false
		}
	}
	// A general operand: compiled into a temporary, then OP_TEST when it
	// has no next condition. Its falsy value is lost when the falsy exit
	// ends the expression and it is not the last operand.
	if !hasNext && elseEnd && !thenEnd {
		return e.Line(), true
	}
	return 0, false
}
