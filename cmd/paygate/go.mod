module github.com/paygate/paygate-go/cmd/paygate

go 1.25

require (
	github.com/paygate/paygate-go v0.0.0
	github.com/shopspring/decimal v1.6.0
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)

replace github.com/paygate/paygate-go => ../..
