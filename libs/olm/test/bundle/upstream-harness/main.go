// Scratch harness: replays `operator-sdk bundle validate <dir> -o json-alpha1` (v1.42 flow) against
// operator-framework/api v0.45.0 and operator-registry v1.73.0. Not part of the repository.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apimanifests "github.com/operator-framework/api/pkg/manifests"
	apivalidation "github.com/operator-framework/api/pkg/validation"
	apierrors "github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
	registrybundle "github.com/operator-framework/operator-registry/pkg/lib/bundle"
	"github.com/sirupsen/logrus"
	k8svalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

type output struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type result struct {
	Passed  bool     `json:"passed"`
	Outputs []output `json:"outputs"`
	Fatal   string   `json:"fatal,omitempty"`
}

func (r *result) addManifestResults(results ...apierrors.ManifestResult) {
	for _, m := range results {
		for _, w := range m.Warnings {
			r.Outputs = append(r.Outputs, output{"warning", w.Error()})
		}
		for _, e := range m.Errors {
			r.Outputs = append(r.Outputs, output{"error", e.Error()})
			r.Passed = false
		}
	}
}

type labelsMap map[string]string

func readAnnotations(path string) (labelsMap, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := registrybundle.AnnotationMetadata{Annotations: make(labelsMap)}
	if err = yaml.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("error unmarshalling potential bundle metadata %s: %v", path, err)
	}
	return a.Annotations, nil
}

func findBundleMetadata(root string) (labelsMap, error) {
	p := filepath.Join(root, registrybundle.MetadataDir, registrybundle.AnnotationsFile)
	ann, err := readAnnotations(p)
	if (err == nil && len(ann) != 0) || (err != nil && !errors.Is(err, os.ErrNotExist)) {
		return ann, err
	}
	ann = make(labelsMap)
	err = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if len(ann) != 0 || info.IsDir() || strings.HasPrefix(path, ".") {
			return nil
		}
		if ann, err = readAnnotations(path); err != nil {
			ann = make(labelsMap)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ann) == 0 {
		return nil, fmt.Errorf("metadata not found in %s", root)
	}
	return ann, nil
}

func validateObject(obj metav1.Object) error {
	f := func(string, bool) []string { return nil }
	errs := k8svalidation.ValidateObjectMetaAccessor(obj, false, f, field.NewPath("metadata"))
	if len(errs) > 0 {
		return fmt.Errorf("error validating object: %s. %v", errs.ToAggregate(), obj)
	}
	return nil
}

func appendResult(results []apierrors.ManifestResult, r apierrors.ManifestResult) []apierrors.ManifestResult {
	for i := range results {
		if results[i].Name == r.Name {
			results[i].Add(r.Errors...)
			results[i].Add(r.Warnings...)
			return results
		}
	}
	return append(results, r)
}

func validateContent(bundle *apimanifests.Bundle, mediaType string) []apierrors.ManifestResult {
	errs := apierrors.ManifestResult{Name: bundle.Name}
	if mediaType == registrybundle.HelmType {
		return []apierrors.ManifestResult{errs}
	}
	for _, u := range bundle.Objects {
		gvk := u.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "ClusterServiceVersion" || gvk.Kind == "CustomResourceDefinition" {
			continue
		}
		supported, _ := registrybundle.IsSupported(gvk.Kind)
		if mediaType == registrybundle.RegistryV1Type && !supported {
			errs.Add(apierrors.ErrInvalidBundle(fmt.Sprintf("unsupported media type %s for bundle object", mediaType), gvk))
			continue
		}
		if err := validateObject(metav1.Object(u)); err != nil {
			errs.Add(apierrors.ErrFailedValidation(err.Error(), u.GetName()))
		}
	}
	results := apivalidation.BundleValidator.Validate(bundle)
	if bundle.CSV != nil {
		results = append(results, apivalidation.ClusterServiceVersionValidator.Validate(bundle.CSV)...)
	} else {
		errs.Add(apierrors.ErrInvalidBundle("no ClusterServiceVersion in bundle", bundle.Name))
	}
	var crds []interface{}
	for _, crd := range bundle.V1beta1CRDs {
		crds = append(crds, crd)
	}
	for _, crd := range bundle.V1CRDs {
		crds = append(crds, crd)
	}
	if len(crds) != 0 {
		results = append(results, apivalidation.CustomResourceDefinitionValidator.Validate(crds...)...)
	}
	return appendResult(results, errs)
}

var optional = map[string]interfaces.Validator{
	"operatorhub":           apivalidation.OperatorHubValidator,
	"operatorhubv2":         apivalidation.OperatorHubV2Validator,
	"capabilities":          apivalidation.StandardCapabilitiesValidator,
	"categories":            apivalidation.StandardCategoriesValidator,
	"alpha-deprecated-apis": apivalidation.AlphaDeprecatedAPIsValidator,
	"good-practices":        apivalidation.GoodPracticesValidator,
	"object":                apivalidation.ObjectValidator,
}

func main() {
	sel := flag.String("select", "", "comma-separated optional validators")
	k8s := flag.String("k8s-version", "", "")
	flag.Parse()
	dir := flag.Arg(0)
	logrus.SetOutput(os.Stderr)
	logrus.SetLevel(logrus.PanicLevel)
	res := &result{Passed: true, Outputs: []output{}}
	emit := func() {
		b, _ := json.MarshalIndent(res, "", "    ")
		fmt.Println(string(b))
	}
	md, err := findBundleMetadata(dir)
	if err != nil {
		res.Passed = false
		res.Fatal = err.Error()
		emit()
		return
	}
	mdir, ok := md[registrybundle.ManifestsLabel]
	if !ok {
		mdir = registrybundle.ManifestsDir
	}
	manifestsDir := filepath.Join(dir, filepath.Clean(mdir))
	mediaType, err := registrybundle.GetMediaType(manifestsDir)
	if err != nil {
		res.Passed = false
		res.Fatal = err.Error()
		emit()
		return
	}
	bundle, err := apimanifests.GetBundleFromDir(manifestsDir)
	if err != nil {
		res.Passed = false
		res.Fatal = err.Error()
		emit()
		return
	}
	val := registrybundle.NewImageValidator(nil, logrus.NewEntry(logrus.StandardLogger()))
	if err := val.ValidateBundleFormat(dir); err != nil {
		res.Outputs = append(res.Outputs, output{"error", fmt.Sprintf("error validating format in %s: %v", dir, err)})
		res.Passed = false
	}
	res.addManifestResults(validateContent(bundle, mediaType)...)
	if *sel != "" {
		objs := bundle.ObjectsToValidate()
		for _, obj := range bundle.Objects {
			objs = append(objs, obj)
		}
		values := map[string]string{}
		if *k8s != "" {
			values["k8s-version"] = *k8s
		}
		objs = append(objs, values)
		for _, name := range strings.Split(*sel, ",") {
			v, ok := optional[name]
			if !ok {
				panic("unknown validator " + name)
			}
			res.addManifestResults(v.Validate(objs...)...)
		}
	}
	emit()
}
