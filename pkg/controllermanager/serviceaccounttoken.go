package controllermanager

import (
	"kplane/pkg/controllers/serviceaccounttoken"
	"kplane/pkg/serviceaccount"
)

// newServiceAccountTokenController builds the serviceaccount-token
// controller with the signing key of --service-account-private-key-file,
// or returns nil (the controller stays off) when the flag is empty, as
// upstream's controller-manager does.
func newServiceAccountTokenController(cc ControllerContext) (Controller, error) {
	if cc.Options.ServiceAccountPrivateKeyFile == "" {
		cc.Logger.Warn("controller disabled: no --service-account-private-key-file", "controller", serviceaccounttoken.Name)
		return nil, nil
	}
	key, err := serviceaccount.LoadPrivateKey(cc.Options.ServiceAccountPrivateKeyFile)
	if err != nil {
		return nil, err
	}
	// Legacy tokens name a fixed issuer, whatever the apiserver's.
	issuer, err := serviceaccount.NewIssuer(serviceaccount.LegacyIssuer, key)
	if err != nil {
		return nil, err
	}
	return serviceaccounttoken.New(cc.Client, cc.Informers, serviceaccounttoken.Options{
		Logger: cc.Logger, Clock: cc.Clock, Issuer: issuer, RootCA: cc.RootCA})
}
