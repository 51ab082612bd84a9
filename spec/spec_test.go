package spec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/monad-hooks/monad-hooks/spec"
)

// TestSpec runs every case of every spec file under this directory; none
// may be skipped.
func TestSpec(t *testing.T) {
	files, err := spec.Load(os.DirFS("cases"), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no spec files found")
	}
	r := newRunner(t)
	for _, f := range files {
		t.Run(strings.TrimSuffix(f.Path, ".toml"), func(t *testing.T) {
			t.Parallel()
			for i := range f.Cases {
				c := &f.Cases[i]
				t.Run(c.Name, func(t *testing.T) {
					t.Parallel()
					res := r.RunCase(t.Context(), f, c)
					if res.Skipped != "" {
						// The format lets users park a case; the project's
						// own suite may not: a case that cannot pass yet
						// is a failing case.
						t.Fatalf("case marked skip (%s)", res.Skipped)
					}
					if res.Err != nil {
						t.Fatal(res.Err)
					}
					for _, m := range res.Mismatches {
						t.Error(m)
					}
				})
			}
		})
	}
}
