package stdlib_test

import (
	"fmt"
	"io/fs"

	"github.com/monad-hooks/monad-hooks/stdlib"
)

// The embedded packs, their events and the default set.
func ExamplePacks() {
	for _, p := range stdlib.Packs() {
		fmt.Println(p.Name, p.Events)
	}
	fmt.Println("default:", stdlib.Default())
	// Output:
	// approve-readonly [ApprovalRequest]
	// ask-irreversible [BeforeTool]
	// deny-destructive [BeforeTool]
	// gate-network [BeforeTool]
	// protect-paths [BeforeTool]
	// redact-pii [BeforeModel AfterTool AfterModel AfterSubagent AfterTurn]
	// redact-secrets [BeforeModel AfterTool AfterModel AfterSubagent AfterTurn]
	// default: [deny-destructive protect-paths redact-secrets ask-irreversible]
}

// A host checks a pack's parameters before it loads it, then reads its
// script from FS.
func ExampleValidateParams() {
	with := map[string]any{"protectedBranches": []any{"main", "release/*"}}
	if err := stdlib.ValidateParams("deny-destructive", with); err != nil {
		fmt.Println(err)
		return
	}
	info, _ := stdlib.Lookup("deny-destructive")
	src, _ := fs.ReadFile(stdlib.FS(), info.Script)
	fmt.Println(info.Script, len(src) > 0)

	fmt.Println(stdlib.ValidateParams("deny-destructive", map[string]any{"protectedBranch": "main"}))
	fmt.Println(stdlib.ValidateParams("protect-paths", map[string]any{"read": "block"}))
	// Output:
	// deny-destructive.lua true
	// stdlib pack deny-destructive: parameter protectedBranch: unknown parameter; did you mean protectedBranches? (have matcher, commandFields, protectedBranches, extraPatterns, exempt, exfiltration)
	// stdlib pack protect-paths: parameter read: want one of deny, ask, off, got "block"
}
