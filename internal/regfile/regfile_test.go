package regfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monad-hooks/monad-hooks/internal/regfile"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("hello"), 0o600))
	b, err := regfile.Read(p, 5)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))

	_, err = regfile.Read(p, 4)
	assert.ErrorIs(t, err, regfile.ErrTooLarge)

	_, err = regfile.Read(dir, 100)
	assert.ErrorIs(t, err, regfile.ErrNotRegular)
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.EqualError(t, err, "read "+dir+": not a regular file: invalid argument")

	_, err = regfile.Read(filepath.Join(dir, "missing"), 100)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err = regfile.Read("/dev/zero", 100)
		assert.True(t, errors.Is(err, regfile.ErrNotRegular), "got %v", err)
	}
}
