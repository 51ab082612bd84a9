package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/events"
)

// TestFlagsCannotShadowPolicy tries every CLI route to weaken an operator
// policy hook: loading a policy file as user configuration, listing the same
// command as a user hook, turning the stdlib off, adding Lua that allows.
// The policy deny holds on every route.
func TestFlagsCannotShadowPolicy(t *testing.T) {
	env := testEnv(t)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(env.Dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("policy.json", `{"policyHooks":{"BeforeTool":[{"hooks":[{"command":"echo operator >&2; exit 2"}]}]}}`)
	write("same.json", `{"hooks":{"BeforeTool":[{"hooks":[{"command":"echo operator >&2; exit 2"}]}]}}`)
	write("allow.json", `{"hooks":{"BeforeTool":[{"hooks":[{"command":"echo '{\"decision\":\"allow\"}'"}]}]}}`)
	write("allow.lua", `hook{ event = "BeforeTool", handler = function() return { decision = "allow" } end }`)
	in := `{"toolName":"bash","toolInput":{"command":"ls"}}`

	// A policy file given as user configuration is refused, not demoted:
	// run leaves it out and says so (exit 0, as for any broken user file),
	// check fails.
	code, stdout, stderr := runCLI(t, env, in, "run", "BeforeTool", "--config", "policy.json", "--stdlib", "none")
	if res := decodeResult(t, stdout); code != ExitOK || !strings.Contains(stderr, "policy_in_user_config") ||
		!strings.Contains(res.ConfigError, "policy_in_user_config") || len(res.Audit) != 0 {
		t.Errorf("run --config policy.json: exit %d, stderr %q, result %+v; want it left out, naming policy_in_user_config", code, stderr, res)
	}
	code, _, stderr = runCLI(t, env, in, "check", "--config", "policy.json", "--stdlib", "none")
	if code != ExitFail || !strings.Contains(stderr, "policy_in_user_config") {
		t.Errorf("check --config policy.json: exit %d, stderr %q; want exit 1 naming policy_in_user_config", code, stderr)
	}
	for _, args := range [][]string{
		{"--config", "same.json"},
		{"--config", "allow.json"},
		{"--lua", "allow.lua"},
		{"--stdlib", "none", "--config", "allow.json", "--lua", "allow.lua"},
	} {
		argv := append([]string{"run", "BeforeTool", "--policy", "policy.json", "--stdlib", "none"}, args...)
		code, stdout, stderr := runCLI(t, env, in, argv...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		res := decodeResult(t, stdout)
		if res.Decision != events.Deny || res.Reason != "operator" {
			t.Errorf("%v: decision %q %q, want the policy's deny", args, res.Decision, res.Reason)
		}
		for _, r := range res.Audit {
			if r.Tier.String() == "user" && r.Hook == "echo operator >&2; exit 2" {
				t.Errorf("%v: the user copy of the policy command ran as a user hook", args)
			}
		}
	}
}
