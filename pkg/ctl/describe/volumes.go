package describe

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
)

// describeVolumes prints the pod's volumes, each with its source type in
// words and the source's fields. space is the extra indentation of a pod
// template.
func describeVolumes(volumes []api.Volume, w prefixWriter, space string, s Settings) {
	if len(volumes) == 0 {
		w.write(level0, "%sVolumes:\t<none>\n", space)
		return
	}
	w.write(level0, "%sVolumes:\n", space)
	for _, v := range volumes {
		nameIndent := ""
		if space != "" {
			nameIndent = " "
		}
		w.write(level1, "%s%v:\n", nameIndent, v.Name)
		src := v.VolumeSource
		switch {
		case src.HostPath != nil:
			printHostPathVolumeSource(src.HostPath, w)
		case src.EmptyDir != nil:
			printEmptyDirVolumeSource(src.EmptyDir, w)
		case src.Secret != nil:
			w.write(level2, "Type:\tSecret (a volume populated by a Secret)\n"+
				"    SecretName:\t%v\n"+
				"    Optional:\t%v\n", src.Secret.SecretName, deref(src.Secret.Optional))
		case src.ConfigMap != nil:
			w.write(level2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n"+
				"    Name:\t%v\n"+
				"    Optional:\t%v\n", src.ConfigMap.Name, deref(src.ConfigMap.Optional))
		case src.NFS != nil:
			printNFSVolumeSource(src.NFS, w)
		case src.ISCSI != nil:
			printISCSIVolumeSource(src.ISCSI, w)
		case src.PersistentVolumeClaim != nil:
			w.write(level2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"+
				"    ClaimName:\t%v\n"+
				"    ReadOnly:\t%v\n", src.PersistentVolumeClaim.ClaimName, src.PersistentVolumeClaim.ReadOnly)
		case src.Ephemeral != nil:
			w.write(level2, "Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)\n")
			if t := src.Ephemeral.VolumeClaimTemplate; t != nil {
				claim := &api.PersistentVolumeClaim{ObjectMeta: t.ObjectMeta, Spec: t.Spec}
				printPersistentVolumeClaim(&nestedWriter{prefixWriter: w, indent: level2}, claim, false, s)
			}
		case src.DownwardAPI != nil:
			w.write(level2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
			for _, item := range src.DownwardAPI.Items {
				if item.FieldRef != nil {
					w.write(level3, "%v -> %v\n", item.FieldRef.FieldPath, item.Path)
				}
				if item.ResourceFieldRef != nil {
					w.write(level3, "%v -> %v\n", item.ResourceFieldRef.Resource, item.Path)
				}
			}
		case src.FC != nil:
			printFCVolumeSource(src.FC, w)
		case src.Projected != nil:
			printProjectedVolumeSource(src.Projected, w)
		case src.CSI != nil:
			w.write(level2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"+
				"    Driver:\t%v\n"+
				"    FSType:\t%v\n"+
				"    ReadOnly:\t%v\n", src.CSI.Driver, deref(src.CSI.FSType), deref(src.CSI.ReadOnly))
			printVolumeAttributes(w, src.CSI.VolumeAttributes)
		case src.Image != nil:
			w.write(level2, "Type:\tImage (a container image or OCI artifact)\n"+
				"    Reference:\t%v\n"+
				"    PullPolicy:\t%v\n", src.Image.Reference, src.Image.PullPolicy)
		default:
			w.write(level1, "<unknown>\n")
		}
	}
}

func printHostPathVolumeSource(hp *api.HostPathVolumeSource, w prefixWriter) {
	hostPathType := "<none>"
	if hp.Type != nil {
		hostPathType = string(*hp.Type)
	}
	w.write(level2, "Type:\tHostPath (bare host directory volume)\n"+
		"    Path:\t%v\n"+
		"    HostPathType:\t%v\n", hp.Path, hostPathType)
}

func printEmptyDirVolumeSource(ed *api.EmptyDirVolumeSource, w prefixWriter) {
	sizeLimit := "<unset>"
	if ed.SizeLimit != nil && ed.SizeLimit.Sign() > 0 {
		sizeLimit = ed.SizeLimit.String()
	}
	w.write(level2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"+
		"    Medium:\t%v\n"+
		"    SizeLimit:\t%v\n", ed.Medium, sizeLimit)
}

func printNFSVolumeSource(nfs *api.NFSVolumeSource, w prefixWriter) {
	w.write(level2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n"+
		"    Server:\t%v\n"+
		"    Path:\t%v\n"+
		"    ReadOnly:\t%v\n", nfs.Server, nfs.Path, nfs.ReadOnly)
}

func printISCSIVolumeSource(iscsi *api.ISCSIVolumeSource, w prefixWriter) {
	initiator := "<none>"
	if iscsi.InitiatorName != nil {
		initiator = *iscsi.InitiatorName
	}
	w.write(level2, "Type:\tISCSI (an ISCSI Disk resource that is attached to a kubelet's host machine and then exposed to the pod)\n"+
		"    TargetPortal:\t%v\n"+
		"    IQN:\t%v\n"+
		"    Lun:\t%v\n"+
		"    ISCSIInterface\t%v\n"+
		"    FSType:\t%v\n"+
		"    ReadOnly:\t%v\n"+
		"    Portals:\t%v\n"+
		"    DiscoveryCHAPAuth:\t%v\n"+
		"    SessionCHAPAuth:\t%v\n"+
		"    SecretRef:\t%v\n"+
		"    InitiatorName:\t%v\n",
		iscsi.TargetPortal, iscsi.IQN, iscsi.Lun, iscsi.ISCSIInterface, iscsi.FSType, iscsi.ReadOnly,
		iscsi.Portals, iscsi.DiscoveryCHAPAuth, iscsi.SessionCHAPAuth, secretRefString(iscsi.SecretRef), initiator)
}

// secretRefString prints a *LocalObjectReference as kubectl's %v of the
// pointer does: "&LocalObjectReference{Name:x,}" or "nil".
func secretRefString(ref *api.LocalObjectReference) string {
	if ref == nil {
		return "nil"
	}
	return fmt.Sprintf("&LocalObjectReference{Name:%s,}", ref.Name)
}

func printFCVolumeSource(fc *api.FCVolumeSource, w prefixWriter) {
	lun := "<none>"
	if fc.Lun != nil {
		lun = strconv.Itoa(int(*fc.Lun))
	}
	w.write(level2, "Type:\tFC (a Fibre Channel disk)\n"+
		"    TargetWWNs:\t%v\n"+
		"    LUN:\t%v\n"+
		"    FSType:\t%v\n"+
		"    ReadOnly:\t%v\n", strings.Join(fc.TargetWWNs, ", "), lun, fc.FSType, fc.ReadOnly)
}

// printProjectedVolumeSource prints a projected volume with kubectl's
// labels (SecretOptionalName, ConfigMapOptional). kubectl prints the
// optional flag as a Go pointer: <nil> when unset, as on the token volume
// every pod gets, and an address when set, where ctl prints the value.
func printProjectedVolumeSource(p *api.ProjectedVolumeSource, w prefixWriter) {
	w.write(level2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
	for _, src := range p.Sources {
		switch {
		case src.Secret != nil:
			w.write(level2, "SecretName:\t%v\n"+
				"    SecretOptionalName:\t%v\n", src.Secret.Name, optionalFlag(src.Secret.Optional))
		case src.DownwardAPI != nil:
			w.write(level2, "DownwardAPI:\ttrue\n")
		case src.ConfigMap != nil:
			w.write(level2, "ConfigMapName:\t%v\n"+
				"    ConfigMapOptional:\t%v\n", src.ConfigMap.Name, optionalFlag(src.ConfigMap.Optional))
		case src.ServiceAccountToken != nil:
			w.write(level2, "TokenExpirationSeconds:\t%d\n", deref(src.ServiceAccountToken.ExpirationSeconds))
		}
	}
}

// printVolumeAttributes prints a CSI volume's attributes one per line,
// each cut at maxAnnotationLen.
func printVolumeAttributes(w prefixWriter, attributes map[string]string) {
	w.write(level2, "%s:%s", "VolumeAttributes", "\t")
	if len(attributes) == 0 {
		w.writeLine("<none>")
		return
	}
	for i, key := range slices.Sorted(maps.Keys(attributes)) {
		if i != 0 {
			w.write(level2, "")
			w.write(level2, "\t")
		}
		line := key + "=" + attributes[key]
		if len(line) > maxAnnotationLen {
			w.write(level2, "%s...\n", line[:maxAnnotationLen])
		} else {
			w.write(level2, "%s\n", line)
		}
	}
}

// optionalFlag is an optional *bool as kubectl shows an unset one: <nil>.
func optionalFlag(b *bool) string {
	if b == nil {
		return "<nil>"
	}
	return strconv.FormatBool(*b)
}
