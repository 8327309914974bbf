package controllermanager

import (
	"kplane/pkg/controllers/csrsigning"
	"kplane/pkg/pki"
)

// newCSRSigningController builds the csrsigning controller with the CA of
// --cluster-signing-cert-file and --cluster-signing-key-file, or returns
// nil (the controller stays off) when they are not given, as upstream's
// controller-manager skips its signer then.
func newCSRSigningController(cc ControllerContext) (Controller, error) {
	if cc.Options.ClusterSigningCertFile == "" || cc.Options.ClusterSigningKeyFile == "" {
		cc.Logger.Warn("controller disabled: no --cluster-signing-cert-file/--cluster-signing-key-file", "controller", csrsigning.Name)
		return nil, nil
	}
	signer, err := pki.LoadSigner(cc.Options.ClusterSigningCertFile, cc.Options.ClusterSigningKeyFile)
	if err != nil {
		return nil, err
	}
	return csrsigning.New(cc.Client, cc.Informers, cc.Recorder, csrsigning.Options{Logger: cc.Logger, Clock: cc.Clock,
		Signer: signer, Duration: cc.Options.ClusterSigningDuration})
}
