package paygate

// UsersService is the users resource group of the API.
type UsersService service
