module github.com/monad-hooks/monad-hooks

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	github.com/yuin/gopher-lua v1.1.2
	go.uber.org/goleak v1.3.0
	layeh.com/gopher-luar v1.0.11
	mvdan.cc/sh/v3 v3.14.1
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/text v0.14.0 // indirect
)
