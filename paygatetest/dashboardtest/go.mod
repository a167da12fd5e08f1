module github.com/paygate/paygate-go/paygatetest/dashboardtest

go 1.25

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/paygate/paygate-go v0.1.0
	github.com/shopspring/decimal v1.6.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
