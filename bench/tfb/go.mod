module github.com/cogen-go/cogen/bench/tfb

go 1.26.0

require (
	github.com/cogen-go/cogen v0.0.0
	github.com/cogen-go/cogen/client/pg v0.0.0
	github.com/jackc/pgx/v5 v5.12.0
	github.com/valyala/fasthttp v1.78.0
)

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/xdg-go/scram v1.4.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

tool github.com/cogen-go/cogen/cmd/cogen

replace (
	github.com/cogen-go/cogen => ../..
	github.com/cogen-go/cogen/client/gate => ../../client/gate
	github.com/cogen-go/cogen/client/pg => ../../client/pg
)
