package paygate

// TransactionsService is the transactions resource group of the API.
type TransactionsService service
