package paygate

// BalanceService is the balance resource group of the API.
type BalanceService service
