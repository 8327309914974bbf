package framework

import (
	"context"
	"strings"
)

// MaxNodeScore is the highest score a Score plugin may give a node, and
// MinNodeScore the lowest (upstream's framework.MaxNodeScore and
// MinNodeScore). A plugin's score is multiplied by the plugin's weight
// before the scores of all plugins are added up.
const (
	MaxNodeScore int64 = 100
	MinNodeScore int64 = 0
)

// Code says what a plugin decided about a node.
type Code int

// The codes a Filter plugin can return, as upstream names them.
const (
	// Success: the node is fine for the pod. A nil *Status means Success.
	Success Code = iota
	// Unschedulable: the pod does not fit now, but could once something
	// changes on the node (other pods leave, so resources free up).
	Unschedulable
	// UnschedulableAndUnresolvable: the pod will not fit whatever happens
	// to the pods on the node (a taint, a label mismatch). Upstream's
	// preemption skips such nodes; kplane has no preemption, so the two
	// codes only differ in what they tell a reader.
	UnschedulableAndUnresolvable
	// Error: the plugin could not decide (a bug or bad input).
	Error
)

// String returns the code's name as upstream prints it.
func (c Code) String() string {
	switch c {
	case Success:
		return "Success"
	case Unschedulable:
		return "Unschedulable"
	case UnschedulableAndUnresolvable:
		return "UnschedulableAndUnresolvable"
	case Error:
		return "Error"
	}
	return "Unknown"
}

// Status is a plugin's verdict on one node. Its reasons are the phrases
// that end up counted in the FailedScheduling message ("Insufficient
// cpu", "node(s) had untolerated taint {…}"), so they must be worded
// exactly as upstream words them. A nil *Status is Success: the common
// case allocates nothing.
type Status struct {
	code    Code
	reasons []string
	plugin  string
}

// NewStatus returns a Status with code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// Code returns the status's code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether the node passed.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// Reasons returns why the node was rejected, one phrase per reason.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string { return strings.Join(s.Reasons(), ", ") }

// Plugin names the plugin that returned the status ("" for Success).
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records which plugin returned s and returns s.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil {
		s.plugin = name
	}
	return s
}

// Plugin is what every plugin is: something with a name. The name appears
// in the decision log and in a rejected node's Status.
type Plugin interface {
	Name() string
}

// PreFilterPlugin checks a pod once per scheduling cycle, before any node
// is looked at. It rejects the pod outright when something outside the
// nodes stops it everywhere (VolumeBinding: a claim that is missing or not
// yet bound), and otherwise may leave what it found in the pod's
// CycleState for its own Filter to read on every node. PreFilter runs on
// the scheduling loop alone, so it may write pod.CycleState; a Filter only
// reads it.
type PreFilterPlugin interface {
	Plugin
	PreFilter(pod *PodInfo) *Status
}

// PreBindPlugin prepares what a pod needs on its chosen node before the
// pod is bound to it: VolumeBinding has the volumes of its
// WaitForFirstConsumer claims provisioned there, and waits for them. It
// runs in the binding cycle, beside the scheduling loop, so it may block;
// it must return when ctx ends.
type PreBindPlugin interface {
	Plugin
	PreBind(ctx context.Context, pod *PodInfo, nodeName string) *Status
}

// FilterPlugin decides whether a pod may run on a node at all. Filter must
// be cheap, must not modify pod or node, and must be safe to call from
// several goroutines: the scheduler calls it for every node of every
// scheduling cycle.
type FilterPlugin interface {
	Plugin
	Filter(pod *PodInfo, node *NodeInfo) *Status
}

// ScorePlugin ranks the nodes that passed every filter. Score returns a
// value between MinNodeScore and MaxNodeScore, unless the plugin also
// implements ScoreNormalizer, in which case Score may return any raw value
// (a sum of preference weights, a count of taints) that NormalizeScore then
// maps onto 0..100.
type ScorePlugin interface {
	Plugin
	Score(pod *PodInfo, node *NodeInfo) int64
}

// ScoreNormalizer is implemented by Score plugins whose raw scores only
// make sense relative to the other nodes' (upstream's ScoreExtensions).
// NormalizeScore rewrites scores, one per feasible node in the same order,
// into 0..MaxNodeScore.
type ScoreNormalizer interface {
	NormalizeScore(pod *PodInfo, scores []int64)
}

// WeightedScorePlugin is a Score plugin with the weight its scores are
// multiplied by. Upstream's default weights make taints and affinity
// preferences count more than resource balance.
type WeightedScorePlugin struct {
	ScorePlugin
	Weight int64
}

// Profile is one scheduling profile: the PreFilter and Filter plugins in
// the order they run and the weighted Score plugins. Upstream lets a
// scheduler serve several profiles, one per schedulerName; kplane runs one
// profile per scheduler process and one process per schedulerName.
type Profile struct {
	PreFilters []PreFilterPlugin
	Filters    []FilterPlugin
	Scores     []WeightedScorePlugin
	PreBinds   []PreBindPlugin
}

// RunPreBinds runs the PreBind plugins in order, in the binding cycle,
// and returns the first status that is not Success, tagged with the
// plugin's name, or nil: the pod is then not bound, and goes back to the
// queue.
func (p *Profile) RunPreBinds(ctx context.Context, pod *PodInfo, nodeName string) *Status {
	for _, pb := range p.PreBinds {
		if st := pb.PreBind(ctx, pod, nodeName); !st.IsSuccess() {
			return st.WithPlugin(pb.Name())
		}
	}
	return nil
}

// RunPreFilters runs the PreFilter plugins in order and returns the first
// status that is not Success, tagged with the plugin's name, or nil. A
// rejection here ends the cycle before any Filter runs: the pod fits no
// node, and the FailedScheduling message gives the plugin's reason once
// instead of counting it per node (see FitError).
func (p *Profile) RunPreFilters(pod *PodInfo) *Status {
	for _, pf := range p.PreFilters {
		if st := pf.PreFilter(pod); !st.IsSuccess() {
			return st.WithPlugin(pf.Name())
		}
	}
	return nil
}

// RunFilters runs the filters on one node in order and returns the first
// rejection, tagged with the plugin's name, or nil when every filter
// passes. Stopping at the first rejection is upstream's behaviour too, and
// it is why a tainted node full of pods reports only the taint: the
// resource check never ran.
func (p *Profile) RunFilters(pod *PodInfo, node *NodeInfo) *Status {
	for _, f := range p.Filters {
		if st := f.Filter(pod, node); !st.IsSuccess() {
			return st.WithPlugin(f.Name())
		}
	}
	return nil
}

// DefaultNormalizeScore maps raw scores onto 0..maxPriority in proportion to
// the highest one; with reverse, the highest raw score gets 0 and a raw 0
// gets maxPriority. When every raw score is 0 they stay 0 (or all become
// maxPriority with reverse). This is upstream's helper of the same name,
// used by NodeAffinity (more matched preference weight is better) and
// TaintToleration (more untolerated PreferNoSchedule taints is worse).
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores []int64) {
	var maxCount int64
	for _, s := range scores {
		if s > maxCount {
			maxCount = s
		}
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i] = maxPriority
			}
		}
		return
	}
	for i := range scores {
		score := maxPriority * scores[i] / maxCount
		if reverse {
			score = maxPriority - score
		}
		scores[i] = score
	}
}
