package config

import "testing"

func benchmarkFixture(b *testing.B, name string) {
	path, data := readFixture(b, name)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(path, data, TierUser); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseJSON(b *testing.B) { benchmarkFixture(b, "agents.json") }
func BenchmarkParseTOML(b *testing.B) { benchmarkFixture(b, "agents.toml") }
