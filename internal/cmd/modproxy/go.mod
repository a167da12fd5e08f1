module github.com/paygate/paygate-go/internal/cmd/modproxy

go 1.26.0

require golang.org/x/mod v0.42.0
