package structural

import "testing"

func TestValidateRootForStatusSubresource(t *testing.T) {
	ok := mustSchema(t, `{"type":"object","description":"a Foo","required":["spec"],"properties":{"spec":{"type":"object"},"status":{"type":"object"}},"x-kubernetes-validations":[{"rule":"true"}]}`)
	if err := ValidateRootForStatusSubresource(P, ok); err != nil {
		t.Errorf("a plain root was refused: %v", err)
	}
	anyOf := mustSchema(t, `{"type":"object","anyOf":[{"required":["spec"]},{"required":["status"]}]}`)
	err := ValidateRootForStatusSubresource(P, anyOf)
	want := P + `: Invalid value: {"type":"object","anyOf":[{"required":["spec"]},{"required":["status"]}]}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`
	if err == nil || err.Error() != want {
		t.Errorf("anyOf at the root:\n  got:  %v\n  want: %s", err, want)
	}
}
