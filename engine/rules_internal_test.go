package engine

import "testing"

func TestRuleID(t *testing.T) {
	for reason, want := range map[string]string{
		"ask-irreversible [iac:terraform-destroy]: destroys ...; instead: ...": "iac:terraform-destroy",
		"team [team:drop-cluster]: drops ...":                                  "team:drop-cluster",
		"deny-destructive [delete-critical]: rm -r would delete /":             "deny-destructive:delete-critical",
		"protect-paths [credentials]: read of ~/.ssh/id_rsa":                   "protect-paths:credentials",
		"ask-irreversible [limit]: the command is too long":                    "ask-irreversible:limit",
		"":                          "",
		"no brackets here":          "",
		"x [unclosed":               "",
		"x []: empty":               "",
		"Pack [Rule]: capitals":     "",
		"two words [a:b]":           "",
		"p [a:b:c]: too many parts": "",
		"p [a b]: a space":          "",
	} {
		if got := ruleID(reason); got != want {
			t.Errorf("ruleID(%q) = %q, want %q", reason, got, want)
		}
	}
}
