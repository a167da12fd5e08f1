package paygate

// PayoutsService is the payouts resource group of the API.
type PayoutsService service
