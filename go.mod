module github.com/paygate/paygate-go

go 1.23

require (
	github.com/jarcoal/httpmock v1.4.2
	github.com/shopspring/decimal v1.6.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5
