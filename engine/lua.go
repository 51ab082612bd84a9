package engine

import "context"

// luaAtom is one Lua atom to load: a script or folder, or a stdlib pack.
type luaAtom struct {
	path   string
	stdlib string
	with   map[string]any
	source string
}

func (s *fileSource) loadLua(ctx context.Context, v *fileVersion, atoms []luaAtom) ([]hookSpec, func(), ConfigErrors) {
	if len(atoms) == 0 {
		return nil, nil, nil
	}
	var errs ConfigErrors
	for _, a := range atoms {
		errs = append(errs, &ConfigError{Code: CodeLuaLoad, Source: a.source, Msg: "Lua atoms are not available in this build yet"})
	}
	return nil, nil, errs
}
