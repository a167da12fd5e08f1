module github.com/paygate/paygate-go/dedup/redisdedup

go 1.23

require (
	github.com/paygate/paygate-go v0.1.0
	github.com/redis/go-redis/v9 v9.14.1
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/shopspring/decimal v1.6.0 // indirect
)
