package syntax_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/shell/syntax"
)

func TestJoinQuotesWhatTheShellWouldRead(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"rm", "-rf", "/"}, "rm -rf /"},
		{[]string{"git", "commit", "-m", "fix it"}, "git commit -m 'fix it'"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"ls", "~", "$HOME", "*.go", "a;b", "$(id)"}, "ls '~' '$HOME' '*.go' 'a;b' '$(id)'"},
		{[]string{"A=1", "B=2"}, "'A=1' B=2"},
		{[]string{"--opt=x,y:z@h%1+2"}, "--opt=x,y:z@h%1+2"},
		{nil, ""},
	} {
		assert.Equal(t, tc.want, syntax.Join(tc.argv), "%q", tc.argv)
	}
}

func TestJoinRoundTripsThroughSplit(t *testing.T) {
	for _, argv := range [][]string{
		{"rm", "-rf", "/"},
		{"bash", "-lc", "rm -rf ~ && echo 'done'"},
		{"printf", "%s\n", "a b", "", "'", `\`, "\"x\"", "`id`", "#c", "{a,b}", "tab\there", "ünï"},
	} {
		got, err := syntax.Split(syntax.Join(argv))
		require.NoError(t, err, "%q", argv)
		assert.Equal(t, argv, got)
	}
}
