package api

// This file holds defaulting: the values the apiserver fills into fields a
// client left empty, before validation and storage. They mirror Kubernetes
// v1.32 (pkg/apis/<group>/v1/defaults.go), so that `kubectl get -o yaml`
// shows what a real cluster shows.
//
// Defaulting is idempotent: applying it twice changes nothing the second time.

import (
	"math"
	"strings"
)

// SetDefaults fills in the defaults of obj's kind in place. Kinds without
// defaults (Lease, Event, ConfigMap, …) are left alone.
func SetDefaults(obj Object) {
	switch o := obj.(type) {
	case *Pod:
		setDefaultsPod(o)
	case *Service:
		setDefaultsService(o)
	case *Endpoints:
		setDefaultsEndpoints(o)
	case *EndpointSlice:
		setDefaultsEndpointSlice(o)
	case *NetworkPolicy:
		setDefaultsNetworkPolicy(o)
	case *IngressClass:
		setDefaultsIngressClass(o)
	case *Node:
		setDefaultsNode(o)
	case *Namespace:
		setDefaultsNamespace(o)
	case *CustomResourceDefinition:
		setDefaultsCustomResourceDefinition(o)
	case *APIService:
		// An APIService's Service port defaults to 443, as upstream's
		// SetDefaults_ServiceReference does.
		if o.Spec.Service != nil && o.Spec.Service.Port == nil {
			port := int32(443)
			o.Spec.Service.Port = &port
		}
	case *Secret:
		if o.Type == "" {
			o.Type = SecretTypeOpaque
		}
		mergeStringData(o)
	case *PersistentVolume:
		setDefaultsPersistentVolume(o)
	case *PersistentVolumeClaim:
		setDefaultsPersistentVolumeClaim(o)
	case *ResourceQuota:
		roundResourceList(o.Spec.Hard)
		roundResourceList(o.Status.Hard)
		roundResourceList(o.Status.Used)
	case *LimitRange:
		for i := range o.Spec.Limits {
			setDefaultsLimitRangeItem(&o.Spec.Limits[i])
		}
	case *ReplicationController:
		setDefaultsReplicationController(o)
	case *Deployment:
		setDefaultsDeployment(o)
	case *ReplicaSet:
		defaultInt32(&o.Spec.Replicas, 1)
		setDefaultsPodTemplate(&o.Spec.Template)
	case *StatefulSet:
		setDefaultsStatefulSet(o)
	case *DaemonSet:
		setDefaultsDaemonSet(o)
	case *Job:
		setDefaultsJob(o)
	case *CronJob:
		setDefaultsCronJob(o)
	case *HorizontalPodAutoscaler:
		setDefaultsHorizontalPodAutoscaler(o)
	case *HorizontalPodAutoscalerV1:
		defaultInt32(&o.Spec.MinReplicas, 1)
	case *RoleBinding:
		setDefaultsRoleRef(&o.RoleRef)
		setDefaultsSubjects(o.Subjects)
	case *ClusterRoleBinding:
		setDefaultsRoleRef(&o.RoleRef)
		setDefaultsSubjects(o.Subjects)
	case *StorageClass:
		setDefaultsStorageClass(o)
	case *PriorityClass:
		// Upstream's SetDefaults_PriorityClass: the class's pods may
		// preempt unless it says Never.
		if o.PreemptionPolicy == nil {
			o.PreemptionPolicy = ptrTo(PreemptLowerPriority)
		}
	}
}

// defaultInt32 points *p at v when it is nil.
func defaultInt32(p **int32, v int32) {
	if *p == nil {
		*p = &v
	}
}

// defaultInt64 points *p at v when it is nil.
func defaultInt64(p **int64, v int64) {
	if *p == nil {
		*p = &v
	}
}

// defaultBool points *p at v when it is nil.
func defaultBool(p **bool, v bool) {
	if *p == nil {
		*p = &v
	}
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }

// setDefaultsPod applies the PodSpec defaults plus those upstream applies
// only to pods, never to templates: enableServiceLinks, requests copied from
// limits, and hostNetwork host ports. A pod's priority and preemptionPolicy
// are not defaults: the apiserver's Priority admission plugin resolves them
// from the pod's PriorityClass (pkg/apiserver/admission_priority.go).
func setDefaultsPod(pod *Pod) {
	setDefaultsPodSpec(&pod.Spec)
	for _, containers := range [][]Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range containers {
			defaultRequestsFromLimits(&containers[i].Resources)
		}
	}
	defaultBool(&pod.Spec.EnableServiceLinks, true)
	if pod.Spec.HostNetwork {
		defaultHostNetworkPorts(pod.Spec.Containers)
		defaultHostNetworkPorts(pod.Spec.InitContainers)
	}
}

// defaultRequestsFromLimits copies each limit without a request into
// requests, so that a container with only limits is Guaranteed.
func defaultRequestsFromLimits(r *ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = ResourceList{}
	}
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = limit
		}
	}
}

// defaultHostNetworkPorts sets hostPort = containerPort for host-network
// pods, where the two are the same socket.
func defaultHostNetworkPorts(containers []Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			if containers[i].Ports[j].HostPort == 0 {
				containers[i].Ports[j].HostPort = containers[i].Ports[j].ContainerPort
			}
		}
	}
}

// setDefaultsPodTemplate applies the PodSpec defaults to a workload's pod template.
func setDefaultsPodTemplate(t *PodTemplateSpec) {
	setDefaultsPodSpec(&t.Spec)
}

// setDefaultsPodSpec applies the defaults every PodSpec gets, in pods and
// in templates alike.
func setDefaultsPodSpec(spec *PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &PodSecurityContext{}
	}
	defaultInt64(&spec.TerminationGracePeriodSeconds, DefaultTerminationGracePeriodSeconds)
	if spec.SchedulerName == "" {
		spec.SchedulerName = DefaultSchedulerName
	}
	// serviceAccount is the deprecated spelling of serviceAccountName;
	// upstream's conversion keeps the two equal.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName

	for i := range spec.Volumes {
		setDefaultsVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		setDefaultsContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		setDefaultsContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		setDefaultsContainer(&spec.EphemeralContainers[i].Container)
	}
	roundResourceList(spec.Overhead)
	if spec.Resources != nil {
		roundResourceList(spec.Resources.Limits)
		roundResourceList(spec.Resources.Requests)
	}
}

// setDefaultsContainer applies the per-container defaults.
func setDefaultsContainer(c *Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = DefaultTerminationMessagePath
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = ProtocolTCP
		}
	}
	for i := range c.Env {
		if from := c.Env[i].ValueFrom; from != nil && from.FieldRef != nil {
			setDefaultsObjectFieldSelector(from.FieldRef)
		}
	}
	roundResourceList(c.Resources.Limits)
	roundResourceList(c.Resources.Requests)
	for _, p := range []*Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			setDefaultsProbe(p)
		}
	}
	if c.Lifecycle != nil {
		for _, h := range []*LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil && h.HTTPGet != nil {
				setDefaultsHTTPGetAction(h.HTTPGet)
			}
		}
	}
}

// defaultPullPolicy is Always for ":latest" or untagged images (which mean
// latest), IfNotPresent for any other tag or a digest.
func defaultPullPolicy(image string) PullPolicy {
	if strings.Contains(image, "@") {
		return PullIfNotPresent
	}
	// A tag follows the last ':' after the last '/'; a ':' before that
	// belongs to a registry port, as in "registry:5000/nginx".
	name := image[strings.LastIndex(image, "/")+1:]
	i := strings.LastIndex(name, ":")
	if i < 0 || name[i+1:] == "latest" {
		return PullAlways
	}
	return PullIfNotPresent
}

// setDefaultsProbe applies the probe timing defaults.
func setDefaultsProbe(p *Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if p.HTTPGet != nil {
		setDefaultsHTTPGetAction(p.HTTPGet)
	}
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

// setDefaultsHTTPGetAction defaults the path to "/" and the scheme to HTTP.
func setDefaultsHTTPGetAction(a *HTTPGetAction) {
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = URISchemeHTTP
	}
}

// setDefaultsObjectFieldSelector defaults the field's API version to v1.
func setDefaultsObjectFieldSelector(s *ObjectFieldSelector) {
	if s.APIVersion == "" {
		s.APIVersion = "v1"
	}
}

// defaultVolumeMode is 0644, the file mode of projected ConfigMap, Secret
// and downward API files (420 in the decimal JSON shows).
const defaultVolumeMode int32 = 0o644

// setDefaultsVolume makes a volume without a source an emptyDir and fills
// in the defaults of its source.
func setDefaultsVolume(v *Volume) {
	s := &v.VolumeSource
	if *s == (VolumeSource{}) {
		s.EmptyDir = &EmptyDirVolumeSource{}
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		s.HostPath.Type = ptrTo(HostPathUnset)
	}
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		s.Secret.DefaultMode = ptrTo(defaultVolumeMode)
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		s.ConfigMap.DefaultMode = ptrTo(defaultVolumeMode)
	}
	if s.DownwardAPI != nil {
		if s.DownwardAPI.DefaultMode == nil {
			s.DownwardAPI.DefaultMode = ptrTo(defaultVolumeMode)
		}
		setDefaultsDownwardAPIFiles(s.DownwardAPI.Items)
	}
	if s.Projected != nil {
		if s.Projected.DefaultMode == nil {
			s.Projected.DefaultMode = ptrTo(defaultVolumeMode)
		}
		for i := range s.Projected.Sources {
			src := &s.Projected.Sources[i]
			if src.ServiceAccountToken != nil {
				defaultInt64(&src.ServiceAccountToken.ExpirationSeconds, 3600)
			}
			if src.DownwardAPI != nil {
				setDefaultsDownwardAPIFiles(src.DownwardAPI.Items)
			}
		}
	}
	if s.ISCSI != nil && s.ISCSI.ISCSIInterface == "" {
		s.ISCSI.ISCSIInterface = "default"
	}
	if s.Ephemeral != nil && s.Ephemeral.VolumeClaimTemplate != nil {
		setDefaultsPersistentVolumeClaimSpec(&s.Ephemeral.VolumeClaimTemplate.Spec)
	}
}

// setDefaultsDownwardAPIFiles defaults each file's field selector.
func setDefaultsDownwardAPIFiles(items []DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil {
			setDefaultsObjectFieldSelector(items[i].FieldRef)
		}
	}
}

// roundResourceList rounds every amount up to milli-units, as upstream's
// SetDefaults_ResourceList does, so "0.0001" CPU is stored as "1m".
func roundResourceList(l ResourceList) {
	for name, q := range l {
		if !q.RoundUp(-3) {
			l[name] = q
		}
	}
}

// setDefaultsService applies the Service defaults. The apiserver's
// allocator assigns clusterIP(s) and node ports; here only the policy
// fields are filled in, for a single-stack IPv4 cluster.
func setDefaultsService(svc *Service) {
	spec := &svc.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = ServiceAffinityNone
	}
	if spec.SessionAffinity == ServiceAffinityNone {
		spec.SessionAffinityConfig = nil
	}
	if spec.SessionAffinity == ServiceAffinityClientIP {
		if spec.SessionAffinityConfig == nil {
			spec.SessionAffinityConfig = &SessionAffinityConfig{}
		}
		if spec.SessionAffinityConfig.ClientIP == nil {
			spec.SessionAffinityConfig.ClientIP = &ClientIPConfig{}
		}
		defaultInt32(&spec.SessionAffinityConfig.ClientIP.TimeoutSeconds, DefaultClientIPServiceAffinitySeconds)
	}
	if spec.Type == "" {
		spec.Type = ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = ProtocolTCP
		}
		if p.TargetPort.IsZero() {
			p.TargetPort = FromInt32(p.Port)
		}
	}
	externallyAccessible := spec.Type == ServiceTypeNodePort || spec.Type == ServiceTypeLoadBalancer ||
		(spec.Type == ServiceTypeClusterIP && len(spec.ExternalIPs) > 0)
	if externallyAccessible && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = ServiceExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil && spec.Type != ServiceTypeExternalName {
		spec.InternalTrafficPolicy = ptrTo(ServiceInternalTrafficPolicyCluster)
	}
	if spec.Type == ServiceTypeLoadBalancer {
		defaultBool(&spec.AllocateLoadBalancerNodePorts, true)
	}
	setDefaultsServiceIPFamilies(svc)
}

// setDefaultsServiceIPFamilies fills ipFamilyPolicy and ipFamilies as the
// registry does on a single-stack IPv4 cluster: SingleStack/[IPv4], except
// that a headless Service without a selector gets RequireDualStack with both
// families (its endpoints are managed by hand and may be of either family).
// ExternalName Services have no IPs at all.
func setDefaultsServiceIPFamilies(svc *Service) {
	spec := &svc.Spec
	if spec.Type == ServiceTypeExternalName {
		return
	}
	if spec.IPFamilyPolicy == nil {
		if spec.ClusterIP == ClusterIPNone && len(spec.Selector) == 0 {
			spec.IPFamilyPolicy = ptrTo(IPFamilyPolicyRequireDualStack)
		} else {
			spec.IPFamilyPolicy = ptrTo(IPFamilyPolicySingleStack)
		}
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []IPFamily{IPv4Protocol}
		if *spec.IPFamilyPolicy == IPFamilyPolicyRequireDualStack {
			spec.IPFamilies = append(spec.IPFamilies, IPv6Protocol)
		}
	}
}

// setDefaultsEndpoints defaults each port's protocol to TCP.
func setDefaultsEndpoints(e *Endpoints) {
	for i := range e.Subsets {
		for j := range e.Subsets[i].Ports {
			if e.Subsets[i].Ports[j].Protocol == "" {
				e.Subsets[i].Ports[j].Protocol = ProtocolTCP
			}
		}
	}
}

// setDefaultsEndpointSlice gives each port a name ("" when unset, so that
// the field is always present) and the TCP protocol, as upstream's
// discovery/v1 SetDefaults_EndpointPort does.
func setDefaultsEndpointSlice(s *EndpointSlice) {
	for i := range s.Ports {
		port := &s.Ports[i]
		if port.Name == nil {
			name := ""
			port.Name = &name
		}
		if port.Protocol == nil {
			protocol := ProtocolTCP
			port.Protocol = &protocol
		}
	}
}

// setDefaultsNode defaults allocatable to capacity when a kubelet reports only capacity.
func setDefaultsNode(n *Node) {
	roundResourceList(n.Status.Capacity)
	roundResourceList(n.Status.Allocatable)
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = DeepCopyValue(n.Status.Capacity)
	}
}

// setDefaultsNamespace applies the Namespace defaults: the
// kubernetes.io/metadata.name label and phase Active. (The "kubernetes"
// finalizer is not a default: the apiserver sets it on create only, so that
// the namespace controller can clear it.)
func setDefaultsNamespace(ns *Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[LabelMetadataName] = ns.Name
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = NamespaceActive
	}
}

// setDefaultsPersistentVolume applies the PersistentVolume defaults.
func setDefaultsPersistentVolume(pv *PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptrTo(PersistentVolumeFilesystem)
	}
	if pv.Spec.HostPath != nil && pv.Spec.HostPath.Type == nil {
		pv.Spec.HostPath.Type = ptrTo(HostPathUnset)
	}
	if pv.Spec.ISCSI != nil && pv.Spec.ISCSI.ISCSIInterface == "" {
		pv.Spec.ISCSI.ISCSIInterface = "default"
	}
	roundResourceList(pv.Spec.Capacity)
}

// setDefaultsStorageClass applies upstream's StorageClass defaults: the
// volumes of a class are deleted with their claims, and bound at once.
func setDefaultsStorageClass(class *StorageClass) {
	if class.ReclaimPolicy == nil {
		class.ReclaimPolicy = ptrTo(PersistentVolumeReclaimDelete)
	}
	if class.VolumeBindingMode == nil {
		class.VolumeBindingMode = ptrTo(VolumeBindingImmediate)
	}
}

// setDefaultsPersistentVolumeClaim applies the claim defaults.
func setDefaultsPersistentVolumeClaim(pvc *PersistentVolumeClaim) {
	setDefaultsPersistentVolumeClaimSpec(&pvc.Spec)
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = ClaimPending
	}
	roundResourceList(pvc.Status.Capacity)
}

// setDefaultsPersistentVolumeClaimSpec defaults volumeMode to Filesystem.
func setDefaultsPersistentVolumeClaimSpec(spec *PersistentVolumeClaimSpec) {
	if spec.VolumeMode == nil {
		spec.VolumeMode = ptrTo(PersistentVolumeFilesystem)
	}
	roundResourceList(spec.Resources.Limits)
	roundResourceList(spec.Resources.Requests)
}

// setDefaultsLimitRangeItem fills a container limit's gaps the way
// upstream does: default ← max, defaultRequest ← default, then ← min.
func setDefaultsLimitRangeItem(item *LimitRangeItem) {
	for _, l := range []ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
		roundResourceList(l)
	}
	if item.Type != LimitTypeContainer {
		return
	}
	if item.Default == nil {
		item.Default = ResourceList{}
	}
	if item.DefaultRequest == nil {
		item.DefaultRequest = ResourceList{}
	}
	for name, q := range item.Max {
		if _, ok := item.Default[name]; !ok {
			item.Default[name] = q
		}
	}
	for name, q := range item.Default {
		if _, ok := item.DefaultRequest[name]; !ok {
			item.DefaultRequest[name] = q
		}
	}
	for name, q := range item.Min {
		if _, ok := item.DefaultRequest[name]; !ok {
			item.DefaultRequest[name] = q
		}
	}
}

// setDefaultsReplicationController defaults replicas to 1 and the selector
// and labels to the template's labels.
func setDefaultsReplicationController(rc *ReplicationController) {
	if t := rc.Spec.Template; t != nil {
		if t.Labels != nil {
			if len(rc.Spec.Selector) == 0 {
				rc.Spec.Selector = DeepCopyValue(t.Labels)
			}
			if len(rc.Labels) == 0 {
				rc.Labels = DeepCopyValue(t.Labels)
			}
		}
		setDefaultsPodTemplate(t)
	}
	defaultInt32(&rc.Spec.Replicas, 1)
}

// setDefaultsDeployment applies the Deployment defaults: 1 replica, a
// RollingUpdate strategy with 25% surge and 25% unavailability, 10 old
// ReplicaSets kept, and a 600 s progress deadline.
func setDefaultsDeployment(d *Deployment) {
	defaultInt32(&d.Spec.Replicas, 1)
	strategy := &d.Spec.Strategy
	if strategy.Type == "" {
		strategy.Type = RollingUpdateDeploymentStrategyType
	}
	if strategy.Type == RollingUpdateDeploymentStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &RollingUpdateDeployment{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			strategy.RollingUpdate.MaxUnavailable = ptrTo(FromString("25%"))
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			strategy.RollingUpdate.MaxSurge = ptrTo(FromString("25%"))
		}
	}
	defaultInt32(&d.Spec.RevisionHistoryLimit, 10)
	defaultInt32(&d.Spec.ProgressDeadlineSeconds, 600)
	setDefaultsPodTemplate(&d.Spec.Template)
}

// setDefaultsStatefulSet applies the StatefulSet defaults.
func setDefaultsStatefulSet(s *StatefulSet) {
	spec := &s.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = OrderedReadyPodManagement
	}
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = RollingUpdateStatefulSetStrategyType
		if spec.UpdateStrategy.RollingUpdate == nil {
			spec.UpdateStrategy.RollingUpdate = &RollingUpdateStatefulSetStrategy{}
		}
	}
	if spec.UpdateStrategy.Type == RollingUpdateStatefulSetStrategyType && spec.UpdateStrategy.RollingUpdate != nil {
		defaultInt32(&spec.UpdateStrategy.RollingUpdate.Partition, 0)
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = RetainPersistentVolumeClaimRetentionPolicyType
	}
	defaultInt32(&spec.Replicas, 1)
	defaultInt32(&spec.RevisionHistoryLimit, 10)
	// The claim templates are defaulted as whole claims, status included,
	// which is why a real cluster shows "status: {phase: Pending}" in them.
	for i := range spec.VolumeClaimTemplates {
		t := &spec.VolumeClaimTemplates[i]
		if t.APIVersion == "" {
			t.APIVersion = "v1"
		}
		if t.Kind == "" {
			t.Kind = "PersistentVolumeClaim"
		}
		setDefaultsPersistentVolumeClaim(t)
	}
	setDefaultsPodTemplate(&spec.Template)
}

// setDefaultsDaemonSet applies the DaemonSet defaults: RollingUpdate one
// node at a time without surge, and 10 revisions kept.
func setDefaultsDaemonSet(ds *DaemonSet) {
	strategy := &ds.Spec.UpdateStrategy
	if strategy.Type == "" {
		strategy.Type = RollingUpdateDaemonSetStrategyType
	}
	if strategy.Type == RollingUpdateDaemonSetStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &RollingUpdateDaemonSet{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			strategy.RollingUpdate.MaxUnavailable = ptrTo(FromInt(1))
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			strategy.RollingUpdate.MaxSurge = ptrTo(FromInt(0))
		}
	}
	defaultInt32(&ds.Spec.RevisionHistoryLimit, 10)
	setDefaultsPodTemplate(&ds.Spec.Template)
}

// setDefaultsJob applies the Job defaults. Completions is defaulted only
// when parallelism is also unset: a Job with parallelism but no completions
// is a work queue that finishes when any pod succeeds.
func setDefaultsJob(job *Job) {
	spec := &job.Spec
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptrTo(int32(1))
		spec.Parallelism = ptrTo(int32(1))
	}
	defaultInt32(&spec.Parallelism, 1)
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptrTo(int32(math.MaxInt32))
		} else {
			spec.BackoffLimit = ptrTo(int32(6))
		}
	}
	if labels := spec.Template.Labels; labels != nil && len(job.Labels) == 0 {
		job.Labels = DeepCopyValue(labels)
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptrTo(NonIndexedCompletion)
	}
	defaultBool(&spec.Suspend, false)
	if spec.PodFailurePolicy != nil {
		for i := range spec.PodFailurePolicy.Rules {
			for j := range spec.PodFailurePolicy.Rules[i].OnPodConditions {
				if p := &spec.PodFailurePolicy.Rules[i].OnPodConditions[j]; p.Status == "" {
					p.Status = ConditionTrue
				}
			}
		}
	}
	if spec.PodReplacementPolicy == nil {
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptrTo(PodReplacementFailed)
		} else {
			spec.PodReplacementPolicy = ptrTo(PodReplacementTerminatingOrFailed)
		}
	}
	setDefaultsPodTemplate(&spec.Template)
}

// setDefaultsCronJob applies the CronJob defaults. The job template's pod
// template gets the PodSpec defaults, but, as upstream, not the Job defaults:
// those are applied when the CronJob controller creates each Job.
func setDefaultsCronJob(cj *CronJob) {
	if cj.Spec.ConcurrencyPolicy == "" {
		cj.Spec.ConcurrencyPolicy = AllowConcurrent
	}
	defaultBool(&cj.Spec.Suspend, false)
	defaultInt32(&cj.Spec.SuccessfulJobsHistoryLimit, 3)
	defaultInt32(&cj.Spec.FailedJobsHistoryLimit, 1)
	setDefaultsPodTemplate(&cj.Spec.JobTemplate.Spec.Template)
}

// DefaultCPUUtilization is the CPU target of an HPA that names no metrics.
const DefaultCPUUtilization int32 = 80

// setDefaultsHorizontalPodAutoscaler applies the autoscaling/v2 defaults:
// minReplicas 1, an 80% CPU target when no metric is given, and, when a
// behavior is given, the default rules for whatever it leaves out.
func setDefaultsHorizontalPodAutoscaler(hpa *HorizontalPodAutoscaler) {
	defaultInt32(&hpa.Spec.MinReplicas, 1)
	if len(hpa.Spec.Metrics) == 0 {
		hpa.Spec.Metrics = []MetricSpec{cpuUtilizationMetric(DefaultCPUUtilization)}
	}
	if b := hpa.Spec.Behavior; b != nil {
		b.ScaleUp = MergeHPAScalingRules(b.ScaleUp, DefaultHPAScaleUpRules())
		b.ScaleDown = MergeHPAScalingRules(b.ScaleDown, DefaultHPAScaleDownRules())
	}
}

// DefaultHPAScaleUpRules returns upstream's scale-up rules: no
// stabilisation, and per 15 s at most 4 pods or 100%, whichever is more.
func DefaultHPAScaleUpRules() *HPAScalingRules {
	return &HPAScalingRules{
		StabilizationWindowSeconds: ptrTo(int32(0)),
		SelectPolicy:               ptrTo(MaxChangePolicySelect),
		Policies: []HPAScalingPolicy{
			{Type: PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// DefaultHPAScaleDownRules returns upstream's scale-down rules: 100% per
// 15 s. The stabilisation window stays nil so that the controller's own
// setting (300 s by default) applies.
func DefaultHPAScaleDownRules() *HPAScalingRules {
	return &HPAScalingRules{
		SelectPolicy: ptrTo(MaxChangePolicySelect),
		Policies: []HPAScalingPolicy{
			{Type: PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// MergeHPAScalingRules returns defaults overridden by every field set in
// rules (nil rules: defaults as they are), as upstream's
// copyHPAScalingRules. It writes into defaults and returns it, so pass a
// fresh value such as DefaultHPAScaleUpRules(). Defaulting uses it on every
// write; the HPA controller uses it again for the scale-down window, whose
// default is its own flag. A policies list set but empty counts as set, as
// upstream; storage drops an empty list (omitempty), so the controller
// never sees one.
func MergeHPAScalingRules(rules, defaults *HPAScalingRules) *HPAScalingRules {
	if rules == nil {
		return defaults
	}
	if rules.SelectPolicy != nil {
		defaults.SelectPolicy = rules.SelectPolicy
	}
	if rules.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = rules.StabilizationWindowSeconds
	}
	if rules.Policies != nil {
		defaults.Policies = rules.Policies
	}
	if rules.Tolerance != nil {
		defaults.Tolerance = rules.Tolerance
	}
	return defaults
}

// setDefaultsRoleRef defaults a role reference's API group to RBAC's.
func setDefaultsRoleRef(r *RoleRef) {
	if r.APIGroup == "" {
		r.APIGroup = RBACGroupName
	}
}

// setDefaultsSubjects defaults the API group of User and Group subjects to
// RBAC's (ServiceAccounts are in the core group, "").
func setDefaultsSubjects(subjects []Subject) {
	for i := range subjects {
		if subjects[i].APIGroup == "" && (subjects[i].Kind == UserKind || subjects[i].Kind == GroupKind) {
			subjects[i].APIGroup = RBACGroupName
		}
	}
}

// mergeStringData folds a Secret's write-only stringData into data (a key
// in both takes stringData's value) and drops it, as upstream's conversion
// does on every write: a Secret is stored, and read back, with data only.
func mergeStringData(s *Secret) {
	if len(s.StringData) == 0 {
		s.StringData = nil
		return
	}
	if s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}
